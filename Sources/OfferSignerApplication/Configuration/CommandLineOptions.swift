/// The `--name value` / `--name=value` options of a command line, each name declared by the
/// command; the one parser of every subcommand.
public struct CommandLineOptions: Sendable {
    /// The options in the order given (a repeated option: the last wins when read by name).
    public let pairs: [(name: String, value: String)]

    /// Parses `arguments`, refusing a name not in `allowed` or `switches` and a name without
    /// its value. A switch takes no value (`--signatures` reads as `true`), or one after `=`.
    public init(_ arguments: [String], allowed: Set<String>, switches: Set<String> = []) throws(SettingsError) {
        var pairs: [(name: String, value: String)] = []
        var index = 0
        while index < arguments.count {
            let parts = arguments[index].split(separator: "=", maxSplits: 1).map(String.init)
            guard let name = parts.first, allowed.contains(name) || switches.contains(name) else {
                throw .unknownOption(arguments[index], known: allowed.union(switches).sorted())
            }
            if switches.contains(name) {
                pairs.append((name, parts.count == 2 ? parts[1] : "true"))
            } else if parts.count == 2 {
                pairs.append((name, parts[1]))
            } else {
                guard index + 1 < arguments.count else { throw .missingValue(option: name) }
                index += 1
                pairs.append((name, arguments[index]))
            }
            index += 1
        }
        self.pairs = pairs
    }

    /// The value of option `name`, if given.
    public subscript(name: String) -> String? { pairs.last { $0.name == name }?.value }

    /// Every value of option `name`, in the order given.
    public func values(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }
}
