/** The part of s3rver (S3 on loopback, no types of its own) the tests use. */
declare module "s3rver" {
  export default class S3rver {
    constructor(options: {
      readonly address?: string
      readonly port?: number
      readonly silent?: boolean
      readonly directory: string
      readonly configureBuckets?: ReadonlyArray<{ readonly name: string }>
    })
    run(): Promise<{ readonly address: string; readonly port: number }>
    close(): Promise<void>
  }
}
