internal import COpenSSL

/// A failed OpenSSL call, with the library's own diagnostics drained from its error queue.
public struct OpenSSLError: Error, CustomStringConvertible, Sendable {
    /// What the service was doing, e.g. "reading a PKCS#8 private key".
    public let operation: String
    /// OpenSSL's error strings, oldest first.
    public let diagnostics: [String]

    public init(_ operation: String, diagnostics: [String]) {
        self.operation = operation
        self.diagnostics = diagnostics
    }

    /// Builds an error for `operation` and empties the calling thread's OpenSSL error queue.
    static func drain(_ operation: String) -> OpenSSLError {
        var lines: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            lines.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return OpenSSLError(operation, diagnostics: lines)
    }

    public var description: String {
        diagnostics.isEmpty ? "OpenSSL failed \(operation)" : "OpenSSL failed \(operation): \(diagnostics.joined(separator: "; "))"
    }
}
