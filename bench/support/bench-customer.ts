/** The stored address every benchmark's customer orders to. */
export const benchAddress = { street: '1 Bench Road', city: 'Lyon', postalCode: '69001', country: 'FR' };

/**
 * The benchmark's customer on a running service: signed in with the password grant, one stored address,
 * and the body of the order every benchmark places (two lines and a note, to that address).
 */
export const benchCustomer = async (
  url: string,
  { email, password }: { email: string; password: string },
) => {
  const { access_token: token } = (await (
    await fetch(`${url}/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: email, password }),
    })
  ).json()) as { access_token: string };
  const auth = { Authorization: `Bearer ${token}` };
  const postHeaders = { ...auth, 'Content-Type': 'application/json' };
  const address = (await (
    await fetch(`${url}/users/me/addresses`, {
      method: 'POST',
      headers: postHeaders,
      body: JSON.stringify(benchAddress),
    })
  ).json()) as { id: string };
  const orderBody = JSON.stringify({
    items: [
      { productId: '1001', quantity: 2 },
      { productId: '1017', quantity: 1 },
    ],
    shippingAddressId: address.id,
    note: 'Leave with the neighbour',
  });
  return { token, auth, postHeaders, addressId: address.id, orderBody };
};
