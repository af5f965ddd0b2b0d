/// The checks of RFC 9112 that libmicrohttpd 0.9.75 does not make on a request head: each head
/// on which a server and a proxy in front of it could disagree about where the request ends or
/// whom it is for (request smuggling) is refused, and the connection closed after the answer.
///
/// The Host check is here rather than libmicrohttpd's `MHD_OPTION_STRICT_FOR_CLIENT`: in 0.9.75
/// that option answers a missing Host with its response head sent twice, and drops a request
/// line with a space in its target without any answer.
enum RequestFraming {
    /// The only transfer coding the server decodes.
    static let chunked = "chunked"
    /// The header fields the checks read (lowercase).
    static let fields = ["host", "content-length", "transfer-encoding"]

    /// Why the head with `headers` cannot be served, or nil when its framing is sound: the
    /// same answer as ``problem(version:headers:)`` over the fields it reads. The usual head
    /// (one Host, at most one Content-Length of plain digits, no Transfer-Encoding) is passed
    /// in one pass over the fields without copying any (issue 38); any other goes the full way.
    static func problem(version: String, headers: HTTPHeaders) -> HTTPProblem? {
        var hosts = 0, lengths = 0, codings = 0
        var plainLength = true
        headers.forEachField { key, value in
            switch key {
            case "host": hosts += 1
            case "content-length":
                lengths += 1
                plainLength = plainLength && isDecimal(value)
            case "transfer-encoding": codings += 1
            default: break
            }
        }
        if codings == 0, hosts == 1 || (hosts == 0 && version != "HTTP/1.1"), lengths == 0 || (lengths == 1 && plainLength) {
            return nil
        }
        return problem(version: version, headers: headers.fields(named: fields))
    }

    /// Why the head with these header fields (in order, repeats kept) cannot be served, or nil
    /// when its framing is sound. `version` is the request line's, e.g. `HTTP/1.1`.
    static func problem(version: String, headers: [(name: String, value: String)]) -> HTTPProblem? {
        func values(_ name: String) -> [String] {
            headers.filter { isNamed($0.name, name) }.map(\.value)
        }
        let hosts = values("host")
        if hosts.isEmpty && version == "HTTP/1.1" {
            return .invalidRequest("an HTTP/1.1 request must have a Host header field")
        }
        if hosts.count > 1 {
            return .invalidRequest("the request has \(hosts.count) Host header fields; send one")
        }
        let lengths = values("content-length")
        let transferEncodings = values("transfer-encoding")
        if !transferEncodings.isEmpty {
            let codings = transferEncodings.flatMap(listElements).map { $0.lowercased() }
            if let unknown = codings.first(where: { $0 != chunked }) {
                return HTTPProblem(status: 501, code: "not_implemented", title: "Not implemented",
                                   detail: "the transfer coding '\(unknown)' is not supported; send the body with Content-Length or Transfer-Encoding: chunked")
            }
            if codings.count != 1 {
                return .invalidRequest("Transfer-Encoding must name chunked exactly once")
            }
            if version != "HTTP/1.1" {
                return .invalidRequest("Transfer-Encoding is not allowed in \(version) requests")
            }
            if !lengths.isEmpty {
                return .invalidRequest("the request has both Content-Length and Transfer-Encoding; send one of them")
            }
        }
        if !lengths.isEmpty {
            let declared = lengths.flatMap(listElements)
            guard !declared.isEmpty, declared.allSatisfy(isDecimal), Set(declared).count == 1 else {
                return .invalidRequest("Content-Length must be one decimal number (the request has \(declared.joined(separator: ", ")))")
            }
        }
        return nil
    }

    /// Whether the field `name` is `lowercase` (ASCII letters compared without case), byte
    /// by byte, without making a lowercased copy: this runs on every request.
    static func isNamed(_ name: String, _ lowercase: String) -> Bool {
        name.utf8.count == lowercase.utf8.count && zip(name.utf8, lowercase.utf8).allSatisfy { byte, expected in
            byte == expected || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte | 0x20 == expected)
        }
    }

    /// The elements of a comma-separated field value, stripped of optional whitespace (space
    /// and tab, RFC 9110 §5.6.3), empty ones dropped. Byte-level: this runs on every request.
    private static func listElements(_ value: String) -> [String] {
        value.utf8.split(separator: UInt8(ascii: ",")).compactMap { $0.trimmingOptionalWhitespace.map(String.init) }
    }

    /// 1 to 18 ASCII digits: a length that fits an `Int`.
    private static func isDecimal(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 18 && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
