-- The key embed tokens are signed with (HMAC-SHA256, DESIGN.md "Partner enablement"): made once by
-- the first token (src/modules/embed/tokens.ts), shared by every replica. Clearing it ends every
-- outstanding token at once.
alter table settings add column embed_secret text check (char_length(embed_secret) >= 43);
