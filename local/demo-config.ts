/**
 * Demo values of the secrets the local runtime hands to the handlers when the environment
 * does not set them. They are printed at start and are not secret: never use them deployed.
 */
export const demoSecrets = {
  STOREFRONT_SERVICE_TOKEN: 'storefront_demo_7Qm2Xc9LpV4tR8sW',
  STRIPE_WEBHOOK_SECRET: 'whsec_demo_5Kx8Pz2Lq7Vn4Rb9Tc3Wm6Yd',
  SMS_PROVIDER_TOKEN: 'smsprovider_demo_3Hf8Jk2Lm5Np',
  SMS_RECEIPT_SECRET: 'smsreceipt_demo_9Ab4Cd7Ef2Gh',
  CALLBACK_SIGNING_SECRET: 'callbacksign_demo_6Tr3Ws8Qz1Xy',
  WEBHOOK_SECRETS_KEY: 'webhooksecrets_demo_4Kp9Lw2Zr7Qs',
  OPERATOR_PROVISIONING_SECRET: 'operatorprovisioning_demo_8Vn3Hs5Qx2Jd',
} as const;

/** AWS settings of every local runtime: a fixed region and dummy credentials (no AWS account). */
export const localAwsEnv = {
  AWS_REGION: 'eu-west-2',
  AWS_DEFAULT_REGION: 'eu-west-2',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
} as const;
