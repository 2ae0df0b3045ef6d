/* The portal's tax form (/portal/tax), checked as the person types: the same rules, and the same
 messages, as the server's (src/modules/tax/validate.ts), shown beside each field the way the
 server's answer shows them. Progressive enhancement only: without this file the form posts and
 the server names every problem; with it, the server still decides. Countries are the ISO codes
 of the page's own <select> lists. */
var UNUSED_EIN_PREFIXES = ['00', '07', '08', '09', '17', '18', '19', '28', '29', '49', '69', '70', '78', '79', '89', '96', '97'];

function ssnProblem(text) {
  var m = /^(\d{3})-?(\d{2})-?(\d{4})$/.exec(text);
  if (!m) return 'must be an SSN, NNN-NN-NNNN';
  if (m[1] === '000' || m[1] === '666' || m[1].charAt(0) === '9') return 'is not a valid SSN: it cannot start with 000, 666 or 9';
  if (m[2] === '00') return 'is not a valid SSN: its middle two digits cannot be 00';
  if (m[3] === '0000') return 'is not a valid SSN: its last four digits cannot be 0000';
  return null;
}

function einProblem(text) {
  var m = /^(\d{2})-?(\d{7})$/.exec(text);
  if (!m) return 'must be an EIN, NN-NNNNNNN';
  if (UNUSED_EIN_PREFIXES.indexOf(m[1]) >= 0) return 'is not a valid EIN: no EIN starts with ' + m[1];
  return null;
}

function birthDateProblem(text, today) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return 'must be a date, YYYY-MM-DD';
  var date = new Date(text + 'T00:00:00Z');
  if (isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) return 'is not a real date';
  if (text < '1900-01-01' || date > (today || new Date())) return 'must be a date in the past, after 1900';
  return null;
}

// for the browser test that holds these to the server's functions
window.partnerdTaxRules = { ssnProblem: ssnProblem, einProblem: einProblem, birthDateProblem: birthDateProblem };

var TAX_FORM_LABELS = { w9: 'a W-9', w8ben: 'a W-8BEN', w8bene: 'a W-8BEN-E' };

function taxFieldValue(form, name) {
  var el = form.elements.namedItem(name);
  return el && 'value' in el ? String(el.value).trim() : '';
}
function isListedCountry(select, code) {
  for (var i = 0; i < select.options.length; i++) if (select.options[i].value === code && code !== '') return true;
  return false;
}

/** The problem of one field, or null; the server's message for it. */
function taxFieldProblem(form, name) {
  var kind = form.getAttribute('data-form');
  var el = form.elements.namedItem(name);
  var text = taxFieldValue(form, name);
  switch (name) {
    case 'legalName':
    case 'line1':
    case 'city':
    case 'signatureName':
      return text === '' ? 'must not be empty' : null;
    case 'tin':
      if (text === '') return 'is needed for a W-9';
      return taxFieldValue(form, 'tinType') === 'ein' ? einProblem(text) : ssnProblem(text);
    case 'taxClassification':
      return text === '' ? 'is needed for a W-9' : null;
    case 'region':
      return kind === 'w9' && !/^[A-Za-z]{2}$/.test(text) ? 'must be the two-letter state code for a US address, such as CA' : null;
    case 'postalCode':
      return kind === 'w9' && !/^\d{5}(-\d{4})?$/.test(text) ? 'must be a ZIP code, 12345 or 12345-6789' : null;
    case 'dateOfBirth':
      return text === '' ? 'is needed for a W-8BEN' : birthDateProblem(text);
    case 'citizenship':
    case 'incorporationCountry':
      if (text === '') return 'is needed for ' + TAX_FORM_LABELS[kind];
      return isListedCountry(el, text) ? null : 'must be an ISO 3166-1 alpha-2 country code, such as DE';
    case 'country':
      return isListedCountry(el, text) ? null : 'must be an ISO 3166-1 alpha-2 country code, such as US or DE';
    case 'vatId':
      return text !== '' && !/^[A-Z]{2}[A-Za-z0-9+*.]{2,13}$/.test(text) ? 'must be a VAT id with its country prefix, such as DE123456789' : null;
    default:
      return null;
  }
}

/** Shows (or clears) the message beside the field, as the server-drawn page does. */
function showTaxProblem(form, name, message) {
  var el = form.elements.namedItem(name);
  if (!el || !el.closest) return;
  var box = el.closest('.field');
  if (!box) return;
  var id = 'f-' + name + '-error';
  var note = document.getElementById(id);
  var described = (el.getAttribute('aria-describedby') || '').split(' ').filter(function (x) { return x && x !== id; });
  if (message) {
    if (!note) {
      note = document.createElement('p');
      note.className = 'error';
      note.id = id;
      box.appendChild(note);
    }
    note.textContent = message;
    box.classList.add('invalid');
    el.setAttribute('aria-invalid', 'true');
    described.push(id);
  } else {
    if (note) note.remove();
    box.classList.remove('invalid');
    el.removeAttribute('aria-invalid');
  }
  if (described.length) el.setAttribute('aria-describedby', described.join(' '));
  else el.removeAttribute('aria-describedby');
}

var TAX_FULL_LENGTH = { tin: 9, postalCode: 5, region: 2, dateOfBirth: 10 };
function checkTaxField(form, name, typing) {
  var message = taxFieldProblem(form, name);
  var shown = !!document.getElementById('f-' + name + '-error');
  // while typing, a half-typed value is not yet wrong: speak up once it is long enough, or to
  // take back a message already shown
  if (typing && message && !shown) {
    var full = TAX_FULL_LENGTH[name];
    var length = taxFieldValue(form, name).replace(/-/g, '').length;
    if (!full || length < full) return;
  }
  showTaxProblem(form, name, message);
}

(function wire(form) {
  if (!form) return;
  form.addEventListener('input', function (e) {
    var name = e.target && e.target.name;
    if (name) checkTaxField(form, name, e.target.tagName !== 'SELECT');
    if (name === 'tinType' && taxFieldValue(form, 'tin') !== '') checkTaxField(form, 'tin', false);
  });
  form.addEventListener('focusout', function (e) {
    var name = e.target && e.target.name;
    if (name && e.target.type !== 'checkbox' && e.target.type !== 'hidden') checkTaxField(form, name, false);
  });
})(document.getElementById('tax-form'));
