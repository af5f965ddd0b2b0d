import Foundation
import Testing
import OfferSignerCore

@Suite("ReadMostly")
struct ReadMostlyTests {
    struct Pair: Sendable, Equatable {
        var a: Int
        var b: Int
    }

    @Test("readers on many threads always see a value written whole")
    func wholeValues() async {
        let shared = ReadMostly(Pair(a: 0, b: 0))
        let torn = await withTaskGroup(of: Int.self) { group in
            group.addTask {
                for n in 1...20_000 { shared.write { $0 = Pair(a: n, b: -n) } }
                return 0
            }
            for _ in 0..<4 {
                group.addTask {
                    var torn = 0
                    for _ in 0..<20_000 {
                        let pair = shared.read()
                        if pair.a != -pair.b { torn += 1 }
                    }
                    return torn
                }
            }
            return await group.reduce(0, +)
        }
        #expect(torn == 0)
        #expect(shared.read() == Pair(a: 20_000, b: -20_000))
    }
}
