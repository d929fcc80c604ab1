/**
 * Every key of the single table is built here and nowhere else. The attributes stored with
 * each item are described in ./items.ts.
 */

/** Zero-pads a numeric id so that sort keys order numerically (SIM ids up to 15 digits). */
export const padId = (id: number): string => String(id).padStart(15, '0');

/** Key builders, one per item type. */
export const key = {
  customer: (customerId: string) => ({ PK: `CUSTOMER#${customerId}`, SK: 'CUSTOMER' }),
  user: (userId: string) => ({ PK: `USER#${userId}`, SK: 'USER' }),
  bearerToken: (prefix: string) => ({ PK: `TOKEN#${prefix}`, SK: 'TOKEN' }),
  apiKey: (prefix: string) => ({ PK: `APIKEY#${prefix}`, SK: 'APIKEY' }),
  sim: (simId: number) => ({ PK: `SIM#${simId}`, SK: 'SIM' }),
  /** One per customer on the owning customer's path: the SIM as seen from that scope. */
  simScope: (customerId: string, simId: number) => ({ PK: `SCOPE#${customerId}`, SK: `SIM#${padId(simId)}` }),
  dataBundle: (bundleId: string) => ({ PK: `BUNDLE#${bundleId}`, SK: 'BUNDLE' }),
  message: (messageId: string) => ({ PK: `MSG#${messageId}`, SK: 'MSG' }),
  plan: (sku: string) => ({ PK: `PLAN#${sku}`, SK: 'PLAN' }),
  stockUnit: (kind: string, iccid: string) => ({ PK: `STOCK#${kind}`, SK: `UNIT#${iccid}` }),
  account: (email: string) => ({ PK: `ACCOUNT#${email.toLowerCase()}`, SK: 'ACCOUNT' }),
  device: (iccid: string) => ({ PK: `DEVICE#${iccid}`, SK: 'DEVICE' }),
  order: (orderId: string) => ({ PK: `ORDER#${orderId}`, SK: 'ORDER' }),
};

/** Partition keys that are queried as a whole. */
export const partition = {
  simScope: (customerId: string) => `SCOPE#${customerId}`,
  stock: (kind: string) => `STOCK#${kind}`,
};

/** GSI1 keys: lookups by an alternative identifier. */
export const gsi1 = {
  simByIccid: (iccid: string) => ({ GSI1PK: `ICCID#${iccid}`, GSI1SK: 'SIM' }),
  customerByName: (name: string, customerId: string) => ({ GSI1PK: `CUSTOMER_NAME#${name}`, GSI1SK: `CUSTOMER#${customerId}` }),
  tokenOfUser: (userId: string, prefix: string) => ({ GSI1PK: `USER#${userId}`, GSI1SK: `TOKEN#${prefix}` }),
  accountByCustomerId: (customerId: string) => ({ GSI1PK: `STOREFRONT_CUSTOMER#${customerId}`, GSI1SK: 'ACCOUNT' }),
};

/** GSI1 partition values that are queried as a whole. */
export const gsi1Partition = {
  simByIccid: (iccid: string) => `ICCID#${iccid}`,
  customerByName: (name: string) => `CUSTOMER_NAME#${name}`,
  tokensOfUser: (userId: string) => `USER#${userId}`,
  accountByCustomerId: (customerId: string) => `STOREFRONT_CUSTOMER#${customerId}`,
};
