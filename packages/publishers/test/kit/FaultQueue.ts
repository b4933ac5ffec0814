/**
 * Replies a fake gives in place of its own: each is taken once, by the first call its filter lets
 * through after `skip` such calls, so that a fault meant for a publish does not land on a read
 * the workers happen to make first.
 */
export class FaultQueue<Reply> {
  private readonly queued: Array<{ readonly reply: Reply; readonly takes: (call: string) => boolean; skip: number }> = []

  push(reply: Reply, takes: (call: string) => boolean = () => true, skip = 0): void {
    this.queued.push({ reply, takes, skip })
  }

  /** The reply due for `call` (`METHOD /path`), if any; every other fault this call passes has one call fewer to skip. */
  take(call: string): Reply | undefined {
    let due = -1
    this.queued.forEach((entry, at) => {
      if (!entry.takes(call)) return
      if (entry.skip > 0) entry.skip--
      else if (due < 0) due = at
    })
    return due < 0 ? undefined : this.queued.splice(due, 1)[0]!.reply
  }
}

/** A filter for FaultQueue: calls starting with `prefix` (such as "POST /v5/pins"), or any call when none. */
export const callsStartingWith = (prefix: string | undefined) => (call: string): boolean =>
  prefix === undefined || call.startsWith(prefix)
