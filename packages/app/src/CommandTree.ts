import { Command } from "@effect/cli"
import { HashSet, Option } from "effect"

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyCommand = Command.Command<any, any, any, any>

/**
 * Each group's sub-commands. @effect/cli answers a mistyped sub-command two levels down with
 * "Invalid subcommand for herald - use one of 'serve', ..." (the top level's names) and does not
 * expose the tree past one level, so the groups are kept here.
 */
const childrenOf = new WeakMap<AnyCommand, ReadonlyArray<AnyCommand>>()

/** A command that only groups others (`herald admin`, `herald admin keys`): alone it prints its help. */
export const group = <const Name extends string, const Children extends readonly [AnyCommand, ...Array<AnyCommand>]>(
  name: Name,
  description: string,
  children: Children
) => {
  const command = Command.make(name).pipe(Command.withDescription(description), Command.withSubcommands(children))
  childrenOf.set(command, children)
  return command
}

const nameOf = (command: AnyCommand): string => HashSet.values(Command.getNames(command)).next().value ?? ""

/** Every command's words after the program's name: [], ["serve"], ["admin"], ["admin", "keys"], ... */
export const commandPaths = (root: AnyCommand): ReadonlyArray<ReadonlyArray<string>> => {
  const walk = (command: AnyCommand, path: ReadonlyArray<string>): ReadonlyArray<ReadonlyArray<string>> => [
    path,
    ...(childrenOf.get(command) ?? []).flatMap((child) => walk(child, [...path, nameOf(child)]))
  ]
  return walk(root, [])
}

/**
 * Why the command words of a line name no command (`herald admin kes`), naming the group and its
 * sub-commands; none when they do (options and arguments are @effect/cli's to judge).
 */
export const unknownCommand = (root: AnyCommand, argv: ReadonlyArray<string>): Option.Option<string> => {
  let command = root
  const path = [nameOf(root)]
  for (const word of argv) {
    const children = childrenOf.get(command)
    if (children === undefined || word.startsWith("-")) return Option.none()
    const child = children.find((candidate) => nameOf(candidate) === word)
    if (child === undefined) {
      return Option.some(`unknown command ${JSON.stringify(word)} for ${path.join(" ")}; one of: ${children.map(nameOf).join(", ")}`)
    }
    command = child
    path.push(word)
  }
  return Option.none()
}
