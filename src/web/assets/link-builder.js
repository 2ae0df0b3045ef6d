/* The portal's link builder: shows the page a link will land on, and the share address, while the
   partner types. The same steps as src/web/portal/builder.ts (the server applies them on submit):
   <form data-link-builder> with a campaign <select> whose options carry data-destination, inputs
   named page, slug and utm_*, and <output data-final-url>, <output data-share-url>, [data-builder-problem]. */
(function () {
  'use strict';
  var UTM = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term'];

  function pageAddress(page, base) {
    if (page === '') return base.href;
    if (/^https?:\/\//i.test(page)) return page;
    var lower = page.toLowerCase();
    if (lower === base.host || lower.indexOf(base.host + '/') === 0) return base.protocol + '//' + page;
    if (page.charAt(0) === '/' || page.charAt(0) === '?' || page.charAt(0) === '#') return page;
    return '/' + page;
  }

  function build(campaignUrl, form) {
    var page = (form.elements.page && form.elements.page.value || '').trim();
    var utm = UTM.map(function (k) { var el = form.elements[k]; return [k, el ? el.value.trim() : '']; })
      .filter(function (p) { return p[1] !== ''; });
    if (page === '' && utm.length === 0) return { url: null, problem: null };
    var base, url;
    try {
      base = new URL(campaignUrl);
      url = new URL(pageAddress(page, base), base);
    } catch (e) {
      return { url: null, problem: 'This is not a page address.' };
    }
    utm.forEach(function (p) { url.searchParams.set(p[0], p[1]); });
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { url: null, problem: 'Use an http or https address.' };
    if (url.host !== base.host) return { url: null, problem: 'Links may only lead to pages of ' + base.host + '.' };
    return { url: url.href, problem: null };
  }

  function refresh(form) {
    var select = form.elements.campaignId;
    var option = select && select.selectedOptions ? select.selectedOptions[0] : null;
    var destination = option ? option.getAttribute('data-destination') : null;
    var finalOut = form.querySelector('[data-final-url]');
    var shareOut = form.querySelector('[data-share-url]');
    var problemOut = form.querySelector('[data-builder-problem]');
    if (!destination || !finalOut) return;
    var result = build(destination, form);
    finalOut.textContent = result.problem ? '' : result.url || destination;
    if (problemOut) {
      problemOut.textContent = result.problem || '';
      problemOut.hidden = !result.problem;
    }
    if (shareOut) {
      var slug = form.elements.slug ? form.elements.slug.value.trim() : '';
      shareOut.textContent = shareOut.getAttribute('data-base') + (slug || shareOut.getAttribute('data-placeholder'));
    }
  }

  function wire(form) {
    form.addEventListener('input', function () { refresh(form); });
    form.addEventListener('change', function () { refresh(form); });
    refresh(form);
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll('form[data-link-builder]'), wire);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
