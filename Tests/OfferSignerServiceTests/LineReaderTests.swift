import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerService
import Testing

@Suite("NDJSON line reader")
struct LineReaderTests {
    func lines(_ text: String, maxLineBytes: Int) throws -> [LineReader.Line] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        try text.write(to: url, atomically: true, encoding: .utf8)
        return Array(try LineReader(url: url, maxLineBytes: maxLineBytes))
    }

    @Test("lines, CRLF, empty lines, an over-long line and a last line without newline")
    func shapes() throws {
        let long = String(repeating: "x", count: 300)
        let read = try lines("a\r\n\nbb\n\(long)\ncc\r\ndd", maxLineBytes: 100)
        #expect(read == [.text("a"), .text(""), .text("bb"), .tooLong, .text("cc"), .text("dd")])
    }

    @Test("many lines across read chunks come out whole and in order")
    func chunks() throws {
        let numbers = (0..<50_000).map(String.init)
        let read = try lines(numbers.joined(separator: "\n") + "\n", maxLineBytes: 1 << 20)
        #expect(read == numbers.map { .text($0) })
    }
}
