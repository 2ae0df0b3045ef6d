// The signed-out pages' frame (start page, sign-in, sign-up, application received, expired link):
// one centred card on the program's brand colour, its logo and name on top, the same on every one.
import type { Children } from '@kitajs/html';
import type { PageBrand } from './brand';
import { attr } from './ui';

export function AuthLayout(props: { title: string; brand?: PageBrand; children?: Children }): JSX.Element {
  const brand = props.brand;
  const name = brand?.name ?? 'Partnerd';
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title safe>{`${props.title} · ${name}`}</title>
        <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/assets/style.css" />
        {!!brand?.color && <link rel="stylesheet" href={`/brand.css?c=${brand.color.slice(1)}`} />}
        <script src="/assets/ui.js" defer></script>
      </head>
      <body class="auth-page">
        <main id="main" class="auth-card">
          <p class="auth-brand">
            {!!brand?.logoUrl && <img class="brand-logo" src={attr(brand.logoUrl)} alt="" />}
            <span safe>{name}</span>
          </p>
          {props.children}
        </main>
      </body>
    </html>
  );
}
