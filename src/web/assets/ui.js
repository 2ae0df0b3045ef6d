/* Small behaviours every page may use, hooked up by data- attributes (no inline script):
   - [data-dialog="id"] on a link opens that <dialog> instead of following the link (the link is the
     no-script confirm page); Cancel is focused first, Esc closes, focus returns to the trigger.
   - [data-select-all="name"] ticks every checkbox of that name; [data-bulk-bar] shows how many are
     ticked ([data-bulk-count]) and hides while none is.
   - [data-range-select] shows the custom range's date inputs only when "Custom" is chosen. */
(function () {
  'use strict';

  // the phone menu (a <details>) closes with Esc, focus back on its button; from 1024 px it is the
  // side nav, always shown, and Esc leaves it alone
  document.addEventListener('keydown', function (e) {
    if (e.key !== 'Escape' || window.matchMedia('(min-width: 1024px)').matches) return;
    var menu = document.querySelector('details.menu[open]');
    if (!menu) return;
    menu.open = false;
    var summary = menu.querySelector('summary');
    if (summary) summary.focus();
  });

  document.addEventListener('click', function (e) {
    var trigger = e.target instanceof Element ? e.target.closest('[data-dialog]') : null;
    if (!trigger) return;
    var dialog = document.getElementById(trigger.getAttribute('data-dialog'));
    if (!dialog || typeof dialog.showModal !== 'function') return;
    e.preventDefault();
    dialog.showModal();
    var safe = dialog.querySelector('[data-safe]');
    if (safe) safe.focus();
    dialog.addEventListener('close', function () { trigger.focus(); }, { once: true });
  });

  function boxes(form, name) {
    return Array.prototype.slice.call(document.querySelectorAll('input[type="checkbox"][name="' + name + '"]')).filter(function (box) {
      return box.form === form;
    });
  }

  function refreshBulk(form) {
    if (!form) return;
    var bar = document.querySelector('[data-bulk-bar="' + form.id + '"]');
    var all = document.querySelector('[data-select-all][form="' + form.id + '"]') || form.querySelector('[data-select-all]');
    var name = all ? all.getAttribute('data-select-all') : 'ids';
    var list = boxes(form, name);
    var ticked = list.filter(function (b) { return b.checked; }).length;
    if (all) {
      all.checked = list.length > 0 && ticked === list.length;
      all.indeterminate = ticked > 0 && ticked < list.length;
    }
    if (bar) {
      bar.hidden = ticked === 0;
      var label = bar.querySelector('[data-bulk-count]');
      if (label) label.textContent = ticked + ' selected';
    }
  }

  document.addEventListener('change', function (e) {
    var target = e.target;
    if (!(target instanceof HTMLInputElement) || target.type !== 'checkbox' || !target.form) return;
    var name = target.getAttribute('data-select-all');
    if (name) boxes(target.form, name).forEach(function (b) { b.checked = target.checked; });
    refreshBulk(target.form);
  });

  function rangeFields(select) {
    var form = select.form;
    if (!form) return;
    form.querySelectorAll('.range-day').forEach(function (field) { field.hidden = select.value !== 'custom'; });
  }

  document.addEventListener('change', function (e) {
    if (e.target instanceof HTMLSelectElement && e.target.hasAttribute('data-range-select')) {
      rangeFields(e.target);
      if (e.target.value !== 'custom' && e.target.form) e.target.form.requestSubmit();
    }
  });

  function start() {
    document.querySelectorAll('[data-bulk-bar]').forEach(function (bar) { refreshBulk(document.getElementById(bar.getAttribute('data-bulk-bar'))); });
    document.querySelectorAll('[data-range-select]').forEach(rangeFields);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
