import Foundation

/// Reads a file line by line with a fixed buffer, so a large NDJSON file is never held in
/// memory whole. Lines longer than `maxLineBytes` are reported as such, not buffered.
package struct LineReader: Sequence, IteratorProtocol {
    package enum Line: Equatable {
        case text(String)
        case tooLong
    }

    private let handle: FileHandle
    private let maxLineBytes: Int
    private var buffer: [UInt8] = []
    /// Where the unread part of `buffer` starts (consumed bytes are dropped a chunk at a time).
    private var start = 0
    private var skippingLongLine = false
    private var atEnd = false

    package init(url: URL, maxLineBytes: Int = 1 << 20) throws {
        handle = try FileHandle(forReadingFrom: url)
        self.maxLineBytes = maxLineBytes
    }

    /// Reads standard input or any other open handle.
    init(handle: FileHandle, maxLineBytes: Int = 1 << 20) {
        self.handle = handle
        self.maxLineBytes = maxLineBytes
    }

    /// A line's text without a trailing carriage return.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes, as: UTF8.self)
    }

    package mutating func next() -> Line? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                if skippingLongLine || line.count > maxLineBytes {
                    skippingLongLine = false
                    return .tooLong
                }
                return .text(Self.text(line[...]))
            }
            buffer.removeSubrange(..<start)
            start = 0
            if buffer.count > maxLineBytes {
                skippingLongLine = true
                buffer.removeAll(keepingCapacity: true)
            }
            if atEnd {
                guard !buffer.isEmpty || skippingLongLine else { return nil }
                defer {
                    buffer.removeAll()
                    skippingLongLine = false
                }
                return skippingLongLine || buffer.count > maxLineBytes ? .tooLong : .text(Self.text(buffer[...]))
            }
            let chunk = (try? handle.read(upToCount: 64 * 1024)) ?? nil
            if let chunk, !chunk.isEmpty {
                buffer.append(contentsOf: chunk)
            } else {
                atEnd = true
            }
        }
    }
}
