// A link's QR code as a PNG download (GET /v1/links/:id/qr.png), beside its Copy button on every
// table of links: the admin's partner and campaign pages, the portal's links.
import { attr } from '../ui';

export function QrLink(props: { id: string; slug: string }): JSX.Element {
  return (
    <a class="qr-link" href={`/v1/links/${encodeURIComponent(props.id)}/qr.png?size=512&download`} download={attr(`${props.slug}-qr.png`)} aria-label={attr(`QR code of ${props.slug}`)}>
      QR
    </a>
  );
}
