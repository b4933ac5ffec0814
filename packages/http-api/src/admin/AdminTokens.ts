import { randomBytes } from "node:crypto"

/** The port is core's: its authenticator reads it for the operator's requests (Herald-Project). */
export { AdminTokens } from "@herald/core"

export const adminTokenPattern = /^hk_admin_[0-9A-Za-z_-]{40,}$/

/** A new admin token: `hk_admin_` and 256 random bits in base64url. Show it once; store hashApiKey(token). */
export const generateAdminToken = (): string => `hk_admin_${randomBytes(32).toString("base64url")}`
