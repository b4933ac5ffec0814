// Its own module, not the barrel: what the barrel names is bundled with the start (scripts/build.mjs).
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import { HeraldApi } from "./Api.js"

/** The reference page's HTML, as @effect/platform's Scalar route answers it (see ApiReference.ts). */
export const renderApiReference = async (path: `/${string}`): Promise<string> => {
  const { dispose, handler } = HttpLayerRouter.toWebHandler(
    HttpApiScalar.layerHttpLayerRouter({ api: HeraldApi, path, scalar: { withDefaultFonts: false } }),
    { disableLogger: true }
  )
  try {
    return await (await handler(new Request(`http://herald.internal${path}`))).text()
  } finally {
    await dispose()
  }
}
