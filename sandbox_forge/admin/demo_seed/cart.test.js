const { addItem, total } = require('../cart');

describe('cart', () => {
  test('starts empty', () => {
    expect({ items: [] }.items).toHaveLength(0);
  });

  test('adds an item', () => {
    const cart = addItem({ items: [] }, { name: 'apple', price: 3 });
    expect(cart).toEqual({ items: [{ name: 'apple', price: 3 }], count: 1 });
  });

  describe('totals', () => {
    test('sums prices', () => {
      expect(total({ items: [{ price: 3 }, { price: 4 }] })).toBe(8);
    });
  });
});
