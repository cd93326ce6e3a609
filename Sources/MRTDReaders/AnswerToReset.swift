/// An Answer-to-Reset (ISO/IEC 7816-3 §8.2), as PC/SC readers report it for contact cards and
/// synthesise it for contactless ones (PC/SC Part 3 §3.1.3.2.3: `3B 8n 80 01 <historical bytes> TCK`).
///
/// Pure parsing: no I/O. A malformed ATR is an error, never a trap.
public struct AnswerToReset: Sendable, Equatable {
    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Fewer bytes than the format bytes announce.
        case truncated
        /// TS is neither 3B (direct convention) nor 3F (inverse convention).
        case invalidInitialCharacter(UInt8)
        /// The check byte TCK does not make the XOR of T0…TCK zero.
        case checkByteMismatch
        /// More than 33 bytes (ISO/IEC 7816-3 §8.2.1).
        case tooLong(Int)

        public var description: String {
            switch self {
            case .truncated: return "ATR is truncated"
            case .invalidInitialCharacter(let ts): return "ATR initial character \(String(ts, radix: 16)) is not 3B or 3F"
            case .checkByteMismatch: return "ATR check byte TCK is wrong"
            case .tooLong(let n): return "ATR of \(n) bytes is longer than 33"
            }
        }
    }

    /// The bytes as received.
    public let bytes: [UInt8]
    /// Protocols the interface bytes offer (T=0 when none is indicated, ISO/IEC 7816-3 §8.2.3).
    public let protocols: [Int]
    /// The historical bytes (ISO/IEC 7816-4 §8.1.1).
    public let historicalBytes: [UInt8]
    /// Whether this is the ATR a PC/SC reader builds for a contactless card (PC/SC Part 3).
    public let isContactless: Bool

    public init(_ bytes: [UInt8]) throws {
        guard bytes.count <= 33 else { throw ParseError.tooLong(bytes.count) }
        guard bytes.count >= 2 else { throw ParseError.truncated }
        guard bytes[0] == 0x3B || bytes[0] == 0x3F else { throw ParseError.invalidInitialCharacter(bytes[0]) }
        let t0 = bytes[1]
        let historicalCount = Int(t0 & 0x0F)
        var index = 2
        var y = t0 >> 4
        var protocols: [Int] = []
        var interface: [UInt8] = []
        while true {
            for bit in 0..<3 where y & (1 << bit) != 0 {
                guard index < bytes.count else { throw ParseError.truncated }
                interface.append(bytes[index])
                index += 1
            }
            guard y & 0x08 != 0 else { break }
            guard index < bytes.count else { throw ParseError.truncated }
            let td = bytes[index]
            interface.append(td)
            index += 1
            let proto = Int(td & 0x0F)
            if !protocols.contains(proto) { protocols.append(proto) }
            y = td >> 4
        }
        guard index + historicalCount <= bytes.count else { throw ParseError.truncated }
        historicalBytes = Array(bytes[index..<(index + historicalCount)])
        index += historicalCount
        // §8.2.5: TCK is present unless only T=0 is indicated.
        if protocols.contains(where: { $0 != 0 }) {
            guard index < bytes.count else { throw ParseError.truncated }
            guard bytes[1...index].reduce(0, ^) == 0 else { throw ParseError.checkByteMismatch }
            index += 1
        }
        self.bytes = bytes
        self.protocols = protocols.isEmpty ? [0] : protocols
        // PC/SC Part 3 §3.1.3.2.3: T0 = 8n, TD1 = 80, TD2 = 01, no other interface bytes.
        isContactless = bytes[0] == 0x3B && t0 >> 4 == 0x8 && interface == [0x80, 0x01]
    }

    /// A contactless memory card (PC/SC Part 3: historical bytes `80 4F` with the PC/SC RID),
    /// which cannot be an eMRTD.
    public var isContactlessStorageCard: Bool {
        isContactless && historicalBytes.starts(with: [0x80, 0x4F])
    }

    /// What the card capabilities in the historical bytes say about extended Lc/Le (ISO/IEC 7816-4
    /// §8.1.1.2.7, third software function table, b7), or `nil` when they say nothing.
    public var advertisesExtendedLength: Bool? {
        // Category indicator 80: compact-TLV objects follow (§8.1.1.1).
        guard historicalBytes.first == 0x80 else { return nil }
        var i = 1
        while i < historicalBytes.count {
            let tag = historicalBytes[i] >> 4
            let length = Int(historicalBytes[i] & 0x0F)
            guard i + 1 + length <= historicalBytes.count else { return nil }
            if tag == 0x7 && length >= 3 {
                return historicalBytes[i + 3] & 0x40 != 0
            }
            i += 1 + length
        }
        return nil
    }
}
