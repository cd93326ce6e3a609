/// A command APDU as ISO/IEC 7816-3 §12.1 and ISO/IEC 7816-4 §5.1 define it: cases 1 to 4, each in
/// short and extended form.
///
/// The model holds `Nc` (the data) and `Ne` (the expected response length); the length fields
/// `Lc` and `Le` exist only in the encoding.
public struct CommandAPDU: Sendable, Equatable {
    /// Class byte.
    public var cla: UInt8
    /// Instruction byte.
    public var ins: UInt8
    /// Parameter 1.
    public var p1: UInt8
    /// Parameter 2.
    public var p2: UInt8
    /// The command data field (`Nc` = `data.count`, at most 65 535 bytes).
    public var data: [UInt8]
    /// The expected response length `Ne`, or `nil` for no Le field. `1...65536`; 256 (short) and
    /// 65 536 (extended) encode as `00` / `0000` (ISO/IEC 7816-3 §12.1.3).
    public var ne: Int?

    /// Largest `Nc` an extended command carries.
    public static let maxDataLength = 65_535
    /// Largest `Ne` an extended command asks for.
    public static let maxExpectedLength = 65_536

    public init(cla: UInt8 = 0x00, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8] = [], ne: Int? = nil) {
        self.cla = cla
        self.ins = ins
        self.p1 = p1
        self.p2 = p2
        self.data = data
        self.ne = ne
    }

    /// Whether the command cannot be encoded in short form: `Nc > 255` or `Ne > 256`.
    public var needsExtendedLength: Bool {
        data.count > 255 || (ne ?? 0) > 256
    }

    /// The ISO/IEC 7816-4 case number (1 to 4) this command encodes as.
    public var caseNumber: Int {
        switch (data.isEmpty, ne == nil) {
        case (true, true): return 1
        case (true, false): return 2
        case (false, true): return 3
        case (false, false): return 4
        }
    }

    /// The encoded command (ISO/IEC 7816-3 §12.1.3).
    ///
    /// - Parameter extended: `nil` encodes in short form when possible, else extended; `true`
    ///   forces extended length fields; `false` forces short form and throws when the command
    ///   needs extended length.
    public func encoded(extended: Bool? = nil) throws(APDUError) -> [UInt8] {
        guard data.count <= CommandAPDU.maxDataLength else { throw .dataTooLong(data.count) }
        if let ne, !(1...CommandAPDU.maxExpectedLength).contains(ne) { throw .neOutOfRange(ne) }
        let useExtended: Bool
        switch extended {
        case nil: useExtended = needsExtendedLength
        case true?: useExtended = true
        case false?:
            guard !needsExtendedLength else { throw .extendedLengthRequired }
            useExtended = false
        }
        var out: [UInt8] = [cla, ins, p1, p2]
        if useExtended {
            // Case 1 has no length fields in either form.
            if data.isEmpty && ne == nil { return out }
            out.append(0x00)
            if !data.isEmpty {
                out.append(UInt8(data.count >> 8))
                out.append(UInt8(data.count & 0xFF))
                out += data
            }
            if let ne {
                let le = ne == 65_536 ? 0 : ne
                out.append(UInt8(le >> 8))
                out.append(UInt8(le & 0xFF))
            }
        } else {
            if !data.isEmpty {
                out.append(UInt8(data.count))
                out += data
            }
            if let ne { out.append(ne == 256 ? 0 : UInt8(ne)) }
        }
        return out
    }

    /// Parses any of the seven encodings (case 1, 2S, 3S, 4S, 2E, 3E, 4E) of ISO/IEC 7816-3 §12.1.3.
    ///
    /// Lengths must account for every byte: an `Lc` that disagrees with the bytes present is an error.
    public init(bytes: [UInt8]) throws(APDUError) {
        guard bytes.count >= 4 else { throw .malformed("command shorter than the 4-byte header") }
        var data: [UInt8] = []
        var ne: Int? = nil
        let body = bytes.count - 4
        if body == 0 {
            // Case 1.
        } else if body == 1 {
            // Case 2S.
            ne = bytes[4] == 0 ? 256 : Int(bytes[4])
        } else if bytes[4] != 0 {
            // Case 3S or 4S.
            let lc = Int(bytes[4])
            if body == 1 + lc {
                data = Array(bytes[5..<(5 + lc)])
            } else if body == 2 + lc {
                data = Array(bytes[5..<(5 + lc)])
                let le = bytes[5 + lc]
                ne = le == 0 ? 256 : Int(le)
            } else {
                throw .malformed("short Lc \(lc) inconsistent with \(body) bytes after the header")
            }
        } else {
            // Extended: a zero byte, then two-byte fields.
            guard body >= 3 else {
                throw .malformed("extended length field needs 3 bytes, \(body) present")
            }
            let l = Int(bytes[5]) << 8 | Int(bytes[6])
            if body == 3 {
                // Case 2E.
                ne = l == 0 ? 65_536 : l
            } else {
                guard l != 0 else { throw .malformed("extended Lc of zero") }
                if body == 3 + l {
                    data = Array(bytes[7..<(7 + l)])
                } else if body == 5 + l {
                    data = Array(bytes[7..<(7 + l)])
                    let le = Int(bytes[7 + l]) << 8 | Int(bytes[8 + l])
                    ne = le == 0 ? 65_536 : le
                } else {
                    throw .malformed("extended Lc \(l) inconsistent with \(body) bytes after the header")
                }
            }
        }
        self.init(cla: bytes[0], ins: bytes[1], p1: bytes[2], p2: bytes[3], data: data, ne: ne)
    }
}

/// A response APDU (ISO/IEC 7816-4 §5.1): optional data followed by the two status bytes.
public struct ResponseAPDU: Sendable, Equatable {
    /// The response data field.
    public var data: [UInt8]
    /// The trailer SW1-SW2.
    public var statusWord: StatusWord

    public init(data: [UInt8] = [], statusWord: StatusWord) {
        self.data = data
        self.statusWord = statusWord
    }

    /// Splits raw response bytes into data and status word; at least the 2 status bytes are required.
    public init(bytes: [UInt8]) throws(APDUError) {
        guard bytes.count >= 2 else { throw .responseTooShort(bytes.count) }
        let n = bytes.count
        self.init(data: Array(bytes[0..<(n - 2)]),
                  statusWord: StatusWord(sw1: bytes[n - 2], sw2: bytes[n - 1]))
    }

    /// Data followed by SW1 SW2.
    public var bytes: [UInt8] { data + [statusWord.sw1, statusWord.sw2] }
}

/// What can be wrong when building or parsing an APDU.
public enum APDUError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The command data field exceeds 65 535 bytes.
    case dataTooLong(Int)
    /// `Ne` outside `1...65536`.
    case neOutOfRange(Int)
    /// Short form was requested for a command that needs extended length fields.
    case extendedLengthRequired
    /// Command bytes whose length fields disagree with their size.
    case malformed(String)
    /// A response of fewer than 2 bytes (no status word).
    case responseTooShort(Int)

    public var description: String {
        switch self {
        case .dataTooLong(let n): return "command data of \(n) bytes exceeds 65535"
        case .neOutOfRange(let n): return "expected response length \(n) outside 1...65536"
        case .extendedLengthRequired: return "command needs extended length but short form was requested"
        case .malformed(let why): return "malformed command APDU: \(why)"
        case .responseTooShort(let n): return "response of \(n) bytes has no status word"
        }
    }
}
