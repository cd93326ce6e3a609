extension UInt8 {
    /// The bits in reverse order (BIT STRING bit 0 is the most significant bit of the first byte,
    /// X.690 §8.6.2.1; used to read and write KeyUsage-style named bit lists).
    public var bitReversed: UInt8 {
        var v = self
        var r: UInt8 = 0
        for _ in 0..<8 {
            r = r << 1 | (v & 1)
            v >>= 1
        }
        return r
    }
}
