/// The ATR a PC/SC reader reports for a contactless card, built the same way for libnfc readers
/// so both backends report one (PC/SC Part 3 v2.01.09 §3.1.3.2.3: ATR for ISO/IEC 14443-4 cards).
public enum ContactlessATR {
    /// Type A: `3B 8n 80 01` + the ATS historical bytes (at most 15) + TCK.
    ///
    /// - Parameter ats: the ATS without its length byte TL (T0 first), as ISO/IEC 14443-4 §5.2 lays
    ///   it out: T0, then TA(1)/TB(1)/TC(1) when T0 b5/b6/b7 say so, then the historical bytes.
    ///   A malformed ATS (interface bytes past its end) gives an ATR without historical bytes.
    public static func typeA(ats: [UInt8]) -> [UInt8] {
        build(historical: Array(historicalBytes(ats: ats).prefix(15)))
    }

    /// Type B: `3B 88 80 01` + Application Data (4) + Protocol Info (3) of the ATQB + MBLI from the
    /// ATTRIB response in the high nibble of the eighth byte + TCK.
    public static func typeB(applicationData: [UInt8], protocolInfo: [UInt8], attribResponseFirstByte: UInt8) -> [UInt8] {
        var historical = [UInt8](repeating: 0, count: 8)
        for (i, b) in applicationData.prefix(4).enumerated() { historical[i] = b }
        for (i, b) in protocolInfo.prefix(3).enumerated() { historical[4 + i] = b }
        historical[7] = attribResponseFirstByte & 0xF0
        return build(historical: historical)
    }

    /// The historical bytes of an ATS (T0 first, TL stripped); empty when there are none or the
    /// ATS is malformed.
    public static func historicalBytes(ats: [UInt8]) -> [UInt8] {
        guard let t0 = ats.first else { return [] }
        var start = 1
        for bit in [UInt8(0x10), 0x20, 0x40] where t0 & bit != 0 { start += 1 }
        guard start <= ats.count else { return [] }
        return Array(ats[start...])
    }

    private static func build(historical: [UInt8]) -> [UInt8] {
        // TS = 3B (direct convention); T0 = 8k: TD1 present, k historical bytes; TD1 = 80: TD2
        // present, T=0; TD2 = 01: T=1. TCK: exclusive-or of T0 through the last historical byte.
        var atr: [UInt8] = [0x3B, 0x80 | UInt8(historical.count), 0x80, 0x01] + historical
        atr.append(atr.dropFirst().reduce(0, ^))
        return atr
    }
}
