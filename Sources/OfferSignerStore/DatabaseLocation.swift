import Foundation

/// Where the stores live, as `OFFER_SIGNER_DATABASE` / `--database` names it: a file path
/// (SQLite, the embedded default) or a libpq connection URI `postgresql://…` / `postgres://…`
/// (PostgreSQL, for several instances sharing one database).
public enum DatabaseLocation: Sendable, Hashable, CustomStringConvertible {
    case sqlite(path: String)
    case postgreSQL(url: String)

    /// Reads `text`: a `postgresql://` or `postgres://` URI, any other `scheme://` refused
    /// (rather than taken for a file in a folder named `scheme:`), anything else a file path.
    public init(_ text: String) throws(DatabaseLocationError) {
        guard !text.isEmpty else { throw .empty }
        if let scheme = Self.scheme(of: text) {
            guard ["postgresql", "postgres"].contains(scheme.lowercased()) else { throw .unsupportedScheme(scheme) }
            self = .postgreSQL(url: text)
        } else {
            self = .sqlite(path: text)
        }
    }

    /// The path, or the URL with its password hidden: safe for logs.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgreSQL(let url): Self.redacted(url)
        }
    }

    /// `url` with the password of its user information and any `password=` parameter
    /// replaced by `***`.
    public static func redacted(_ url: String) -> String {
        var text = url
        if let schemeEnd = text.range(of: "://") {
            let authorityEnd = text[schemeEnd.upperBound...].firstIndex { "/?#".contains($0) } ?? text.endIndex
            if let at = text[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@"),
               let colon = text[schemeEnd.upperBound..<at].firstIndex(of: ":") {
                text.replaceSubrange(text.index(after: colon)..<at, with: "***")
            }
        }
        return text.replacing(/([?&]password=)[^&#]*/) { "\($0.output.1)***" }
    }

    /// The scheme of `text` when it starts `scheme://` (letters, then letters, digits, `+`, `-`, `.`).
    private static func scheme(of text: String) -> String? {
        guard let match = text.prefixMatch(of: /([A-Za-z][A-Za-z0-9+.\-]*):\/\//) else { return nil }
        return String(match.output.1)
    }
}

/// Why a database setting names no database this service can open.
public enum DatabaseLocationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The setting is empty.
    case empty
    /// A URL of a scheme other than `postgresql` or `postgres` (say `mysql`).
    case unsupportedScheme(String)

    public var description: String {
        switch self {
        case .empty:
            "no database is named: give a SQLite file path or a postgresql:// URL"
        case .unsupportedScheme(let scheme):
            "'\(scheme)://' is not a database this service can use: give a SQLite file path or a postgresql:// (postgres://) URL"
        }
    }
}
