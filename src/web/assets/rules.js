/* The campaign rule editor (admin/campaigns.tsx), hooked up by data- attributes; without script the
   form still works (Add another rule redraws the form, a checkbox removes a rule, both amount fields
   show and the server reads the one the kind needs):
   - [data-add-rule] appends a copy of <template id="rule-template"> (its "__i__" becomes the next row
     number, [data-rule-count] counts the rows) instead of posting the form;
   - [data-add-tier] appends a copy of <template id="tier-template"> to its rule's [data-tier-rows]
     ("__i__" the rule's number, "__k__" the tier's, [data-tier-count] counting them) instead of
     posting the form (without script the server redraws the form with one more empty tier row);
   - [data-remove-rule] removes its row (and tells the form "rules-changed", on which htmx redraws
     the summary in words; typing and choosing redraw it too);
   - [data-kind] shows only the [data-kind-field] (and each tier's [data-tier-kind]) of the chosen kind;
   - [data-event-pick] shows the custom name input ([data-event-other]) only for "Other". */
(function () {
  'use strict';
  var OTHER = '__other';

  function rowOf(el) { return el.closest('[data-rule-row]'); }

  function showKind(row) {
    var kind = row.querySelector('[data-kind]');
    if (!kind) return;
    row.querySelectorAll('[data-kind-field]').forEach(function (field) {
      field.hidden = field.getAttribute('data-kind-field') !== kind.value;
    });
    row.querySelectorAll('[data-tier-kind]').forEach(function (field) {
      field.hidden = field.getAttribute('data-tier-kind') !== kind.value;
    });
  }

  function showOther(row) {
    var pick = row.querySelector('[data-event-pick]');
    var other = row.querySelector('[data-event-other]');
    if (pick && other) other.hidden = pick.value !== OTHER;
  }

  function setUp(row) {
    showKind(row);
    showOther(row);
    var button = row.querySelector('[data-remove-rule]');
    if (button) button.hidden = false;
    var check = row.querySelector('[data-remove-check]');
    if (check) check.hidden = true;
  }

  function renumber(list) {
    list.querySelectorAll('[data-rule-row]').forEach(function (row, n) {
      var legend = row.querySelector('[data-rule-legend]');
      if (legend) legend.textContent = 'Rule ' + (n + 1);
    });
  }

  function addRow(form) {
    var list = form.querySelector('[data-rules]');
    var template = form.querySelector('#rule-template');
    var count = form.querySelector('[data-rule-count]');
    if (!list || !template || !count) return false;
    var next = parseInt(count.value, 10) || 0;
    if (next > 100) return true;
    var holder = document.createElement('div');
    holder.innerHTML = template.innerHTML.replace(/__i__/g, String(next));
    var row = holder.querySelector('[data-rule-row]');
    if (!row) return false;
    list.appendChild(row);
    count.value = String(next + 1);
    setUp(row);
    renumber(list);
    var first = row.querySelector('[data-event-pick]');
    if (first) first.focus();
    return true;
  }

  document.addEventListener('click', function (e) {
    var target = e.target instanceof Element ? e.target : null;
    if (!target) return;
    var add = target.closest('[data-add-rule]');
    if (add && add.form && addRow(add.form)) {
      e.preventDefault();
      return;
    }
    var remove = target.closest('[data-remove-rule]');
    if (remove) {
      var row = rowOf(remove);
      var list = row && row.parentElement;
      if (!row || !list) return;
      var form = remove.form || row.closest('form');
      row.remove();
      renumber(list);
      // the summary in words follows (htmx listens for this on the form)
      if (form) form.dispatchEvent(new CustomEvent('rules-changed', { bubbles: true }));
      var again = form && form.querySelector('[data-add-rule]');
      if (again) again.focus();
    }
  });

  document.addEventListener('change', function (e) {
    var target = e.target instanceof Element ? e.target : null;
    if (!target) return;
    var row = rowOf(target);
    if (!row) return;
    if (target.hasAttribute('data-kind')) showKind(row);
    if (target.hasAttribute('data-event-pick')) {
      showOther(row);
      if (target.value === OTHER) {
        var input = row.querySelector('[data-event-other] input');
        if (input) input.focus();
      }
    }
  });

  function start() {
    document.querySelectorAll('[data-rules]').forEach(function (list) {
      var form = list.closest('form');
      if (form) form.setAttribute('data-rules-ready', '');
      list.querySelectorAll('[data-rule-row]').forEach(setUp);
    });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();

/* "Add another tier" ([data-add-tier]) with script: a copy of the tier template in place. */
(function () {
  'use strict';

  function addTier(button) {
    var row = button.closest('[data-rule-row]');
    var form = button.form || (row && row.closest('form'));
    var template = form && form.querySelector('#tier-template');
    var list = row && row.querySelector('[data-tier-rows]');
    var count = row && row.querySelector('[data-tier-count]');
    if (!row || !template || !list || !count) return false;
    var k = parseInt(count.value, 10) || 0;
    if (k >= 20) return true;
    var holder = document.createElement('ol');
    holder.innerHTML = template.innerHTML
      .replace(/__i__/g, String(parseInt(row.getAttribute('data-rule-row'), 10) || 0))
      .replace(/__k__/g, String(k))
      .replace(/__n__/g, String(k + 1));
    var tier = holder.querySelector('[data-tier-row]');
    if (!tier) return false;
    list.appendChild(tier);
    count.value = String(k + 1);
    if (k + 1 >= 20) button.hidden = true;
    var kind = row.querySelector('[data-kind]');
    tier.querySelectorAll('[data-tier-kind]').forEach(function (field) {
      field.hidden = !!kind && field.getAttribute('data-tier-kind') !== kind.value;
    });
    var first = tier.querySelector('input');
    if (first) first.focus();
    return true;
  }

  document.addEventListener('click', function (e) {
    var target = e.target instanceof Element ? e.target : null;
    var button = target && target.closest('[data-add-tier]');
    if (button && addTier(button)) e.preventDefault();
  });
})();
