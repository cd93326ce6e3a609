import MRTDCore
import Testing
@testable import MRTDDaemon

/// PageBytes (issue 14, flat memory): images kept by finished jobs live in pages of their own.
@Suite struct PageBytesTests {
    static func sample(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) } }

    @Test(arguments: [1, 4095, 4096, 4097, 19_988, 200_000])
    func bytesComeBackAsTheyWentInFromTheirOwnPages(count: Int) {
        let budget = PageBytes.Budget(maximum: 8)
        do {
            let stored = PageBytes(Self.sample(count), budget: budget)
            #expect(stored.isMapped)
            #expect(stored.count == count)
            #expect(stored.bytes == Self.sample(count))
            #expect(budget.live.current == 1)
        }
        // Released with the last reference: unmapped.
        #expect(budget.live.current == 0)
    }

    @Test func nothingIsMappedForNoBytes() {
        let budget = PageBytes.Budget(maximum: 8)
        let stored = PageBytes([], budget: budget)
        #expect(!stored.isMapped)
        #expect(stored.bytes.isEmpty)
        #expect(budget.live.current == 0)
    }

    @Test func beyondTheMappingBudgetTheBytesStayInAnArray() {
        let budget = PageBytes.Budget(maximum: 2)
        var kept = (0..<4).map { PageBytes(Self.sample(5000 + $0), budget: budget) }
        #expect(kept.map(\.isMapped) == [true, true, false, false])
        #expect(budget.live.current == 2)
        for (index, stored) in kept.enumerated() {
            #expect(stored.bytes == Self.sample(5000 + index))
        }
        kept.removeAll()
        #expect(budget.live.current == 0)
        // Room again: the next one is mapped.
        #expect(PageBytes(Self.sample(10), budget: budget).isMapped)
    }
}
