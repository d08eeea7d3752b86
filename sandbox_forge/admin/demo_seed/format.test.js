function formatPrice(cents) {
  if (typeof cents !== 'number') {
    throw new TypeError(`price must be a number, got ${typeof cents}`);
  }
  return `$${(cents / 100).toFixed(2)}`;
}

test('formats cents', () => {
  expect(formatPrice(1999)).toBe('$19.99');
});

test('rejects strings', () => {
  expect(formatPrice('12')).toBe('$0.12');
});

test.skip('formats negative amounts', () => {
  expect(formatPrice(-5)).toBe('-$0.05');
});
