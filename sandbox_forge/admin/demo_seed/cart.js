function addItem(cart, item) {
  return { ...cart, items: [...cart.items, item], count: cart.items.length };
}

function total(cart) {
  return cart.items.reduce((sum, item) => sum + item.price, 0);
}

module.exports = { addItem, total };
