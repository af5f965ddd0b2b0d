/// Finds a key that appears twice in one JSON object. `JSONDecoder` and `JSONSerialization`
/// silently keep one of the two, while a proxy or a log reader in front of the service may
/// read the other, so documents from people refuse them. Keys are compared after their
/// escapes are decoded (`"a"` and `"\u0061"` are the same key) and as Swift compares strings.
///
/// A scan of the bytes, not a parser: it is meant for documents that a JSON parser has already
/// accepted, and on anything else it stops without a finding (never traps).
public enum JSONDuplicateKeys {
    /// The path of the first repeated key (the containers leading to its object, then the key),
    /// or nil when every object's keys are distinct.
    public static func first(in bytes: some Collection<UInt8>) -> [any CodingKey]? {
        var scanner = Scanner(bytes: Array(bytes))
        return scanner.run()
    }

    /// Throws `DecodingError.dataCorrupted` at the first repeated key, in the wording of
    /// `DecodingErrorText` ("'a.b': the key appears twice in its object").
    public static func refuse(in bytes: some Collection<UInt8>) throws(DecodingError) {
        if let path = first(in: bytes) {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "the key appears twice in its object"))
        }
    }

    private enum Frame {
        case object(keys: Set<String>, current: String?, expectingKey: Bool)
        case array(index: Int)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var frames: [Frame] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// The key or index by which each open container reaches the next.
        var path: [any CodingKey] {
            frames.dropLast().map { frame -> any CodingKey in
                switch frame {
                case .object(_, let current, _): JSONPathKey(stringValue: current ?? "")
                case .array(let index): JSONPathKey(intValue: index)
                }
            }
        }

        mutating func run() -> [any CodingKey]? {
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "{"):
                    frames.append(.object(keys: [], current: nil, expectingKey: true))
                    index += 1
                case UInt8(ascii: "["):
                    frames.append(.array(index: 0))
                    index += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard !frames.isEmpty else { return nil }
                    frames.removeLast()
                    index += 1
                case UInt8(ascii: ","):
                    switch frames.last {
                    case .object(let keys, let current, _): frames[frames.count - 1] = .object(keys: keys, current: current, expectingKey: true)
                    case .array(let position): frames[frames.count - 1] = .array(index: position + 1)
                    case nil: return nil
                    }
                    index += 1
                case UInt8(ascii: "\""):
                    guard let text = string() else { return nil }
                    if case .object(var keys, _, true) = frames.last {
                        guard keys.insert(text).inserted else { return path + [JSONPathKey(stringValue: text)] }
                        frames[frames.count - 1] = .object(keys: keys, current: text, expectingKey: false)
                    }
                default:
                    index += 1  // whitespace, ':', and the bytes of numbers, true, false and null
                }
            }
            return nil
        }

        /// Reads the string starting at the quote at `index`, decoding its escapes; nil when
        /// the document ends inside it.
        mutating func string() -> String? {
            index += 1
            var utf8: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let unit = hex4() else { return nil }
                        var scalar = Unicode.Scalar(unit)
                        if (0xD800...0xDBFF).contains(unit), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                           bytes[index + 1] == UInt8(ascii: "u") {
                            let mark = index
                            index += 2
                            if let low = hex4(), (0xDC00...0xDFFF).contains(low) {
                                scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
                            } else {
                                index = mark  // not a pair: the next escape stands alone
                            }
                        }
                        utf8.append(contentsOf: Array(String(Character(scalar ?? "\u{FFFD}")).utf8))
                    default: utf8.append(escape)  // \" \\ \/
                    }
                default:
                    utf8.append(byte)
                }
            }
            return nil
        }

        /// Four hexadecimal digits at `index`, as a UTF-16 code unit.
        mutating func hex4() -> UInt16? {
            guard index + 4 <= bytes.count, let unit = UInt16(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
                return nil
            }
            index += 4
            return unit
        }
    }
}
