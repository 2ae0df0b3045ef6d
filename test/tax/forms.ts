// Valid tax forms of each kind, for the tax tests.
export const W9 = {
  form: 'w9',
  legalName: 'Ada Lovelace',
  taxClassification: 'individual',
  tinType: 'ssn',
  tin: '123-45-6789',
  address: { line1: '1 Main St', city: 'Springfield', region: 'il', postalCode: '62701', country: 'US' },
  signature: { name: 'Ada Lovelace', agreed: true },
};
export const W8BEN = {
  form: 'w8ben',
  legalName: 'Grace Hopper',
  citizenship: 'de',
  dateOfBirth: '1986-12-09',
  treatyCountry: 'DE',
  foreignTin: 'DE-TIN-55555',
  address: { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
  vatId: 'DE123456789',
  signature: { name: 'Grace Hopper', agreed: true },
};
export const W8BENE = {
  form: 'w8bene',
  legalName: 'Hopper GmbH',
  incorporationCountry: 'AT',
  address: { line1: 'Ring 2', city: 'Wien', country: 'AT' },
  signature: { name: 'Grace Hopper', agreed: true },
};
