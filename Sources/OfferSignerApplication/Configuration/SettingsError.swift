/// Why a setting (an `OFFER_SIGNER_*` variable or a command-line option) cannot be used.
public enum SettingsError: Error, CustomStringConvertible, Sendable, Equatable {
    /// An option no command of this name takes; `known` lists those it does.
    case unknownOption(String, known: [String])
    /// An option given last without its value.
    case missingValue(option: String)
    /// A value of the wrong form: `setting` names the variable and flag (empty while the
    /// value is parsed, before the setting adds its name), `expected` what would do.
    case invalidValue(setting: String, value: String, expected: String)
    /// A list setting given with no item.
    case empty(setting: String)

    public var description: String {
        switch self {
        case .unknownOption(let option, let known):
            "unknown option '\(option)' (options: \(known.joined(separator: ", ")))"
        case .missingValue(let option):
            "\(option) needs a value"
        case .invalidValue(let setting, let value, let expected):
            (setting.isEmpty ? "" : "\(setting): ") + "'\(value)' is not \(expected)"
        case .empty(let setting):
            "\(setting) is empty"
        }
    }

    /// The same fault, named as `setting`.
    func named(_ setting: String) -> SettingsError {
        guard case .invalidValue("", let value, let expected) = self else { return self }
        return .invalidValue(setting: setting, value: value, expected: expected)
    }
}
