/* Partnerd browser client: keeps the pp_click ids of share links, identifies the user.
   <script src="https://partners.example.com/client.js" data-key="pk_..."></script>
   then partnerd.identify(userId) once the user is known. A landing page reached through another
   platform's old link (?via=, ?fpr=, ?ref=, ?ps_partner_key=: LEGACY_REF_PARAMS) records the
   click of the share link with that slug, as /r/<slug> would. */
(function (w) {
  var s = document.currentScript;
  var KEY = 'partnerd_clicks';
  var ID = /^clk_[0-9a-z]{26}$/;
  var SLUG = /^[A-Za-z0-9_-]{3,64}$/;
  var REF = ["via","fpr","ref","ps_partner_key"];
  var key = s && s.getAttribute('data-key');
  var api = (s && s.getAttribute('data-api')) || (s ? new URL(s.src, location.href).origin : location.origin);
  var query = new URLSearchParams(location.search);

  function load() {
    try {
      var ids = JSON.parse(localStorage.getItem(KEY) || '[]');
      return Array.isArray(ids) ? ids.filter(function (id) { return ID.test(id); }) : [];
    } catch (e) {
      return [];
    }
  }

  // newest last, each id once, at most 20
  function keep(found) {
    var ids = load();
    found.forEach(function (id) {
      if (!ID.test(id)) return;
      ids = ids.filter(function (x) { return x !== id; });
      ids.push(id);
    });
    try {
      localStorage.setItem(KEY, JSON.stringify(ids.slice(-20)));
    } catch (e) {}
  }
  keep(query.getAll('pp_click'));

  function call(path, body) {
    return fetch(api + path, {
      method: 'POST',
      keepalive: true,
      headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(function (r) {
      return r.json().then(function (body) {
        if (r.ok) return body;
        var e = new Error(body.message || 'request failed');
        e.status = r.status;
        e.body = body;
        throw e;
      });
    });
  }

  // an old platform's referral parameter: its value is the slug of the imported share link
  var pending = Promise.resolve();
  var slug = null;
  REF.forEach(function (name) {
    var value = query.get(name);
    if (slug === null && value && SLUG.test(value)) slug = value;
  });
  var seen = 'partnerd_ref_' + slug;
  if (slug !== null && !query.has('pp_click') && key) {
    var again = false;
    try { again = sessionStorage.getItem(seen) === location.search; } catch (e) {}
    if (!again) {
      var body = { slug: slug };
      if (document.referrer) body.referrer = document.referrer.slice(0, 2048);
      pending = call('/v1/clicks', body).then(function (r) {
        if (r.clickId) keep([r.clickId]);
        try { sessionStorage.setItem(seen, location.search); } catch (e) {}
      }, function () {});
    }
  }

  w.partnerd = {
    clickIds: load,
    identify: function (userId) {
      return pending.then(function () {
        return call('/v1/identify', { userId: String(userId), clickIds: load() });
      });
    },
  };
})(window);
