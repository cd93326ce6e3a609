/// PN532 host-link framing (NXP UM0701-02 §6.2.1): what the host sends, parsed from a byte stream,
/// and the frames the chip answers with.
public enum PN532Frame: Equatable, Sendable {
    /// `00 00 FF 00 FF 00`: from the chip, "command received"; from the host, "abort the command".
    case ack
    /// `00 00 FF FF 00 00`: "send your last frame again".
    case nack
    /// A normal or extended information frame: TFI (D4 host→chip, D5 chip→host), then the data.
    case information([UInt8])
    /// A frame whose length or data checksum is wrong.
    case corrupt

    public static let ackBytes: [UInt8] = [0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00]
    public static let nackBytes: [UInt8] = [0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00]
    /// The application-level error frame (syntax error in the last command).
    public static let errorBytes: [UInt8] = [0x00, 0x00, 0xFF, 0x01, 0xFF, 0x7F, 0x81, 0x00]

    /// Takes the next complete frame off the front of `buffer`, skipping what precedes its start
    /// code `00 FF` (the preamble, the HSU wake-up bytes `55 55 00 00 00`, postambles). Returns nil,
    /// leaving the incomplete frame in place, until more bytes arrive.
    public static func next(from buffer: inout [UInt8]) -> PN532Frame? {
        var start = 0
        while start + 1 < buffer.count && !(buffer[start] == 0x00 && buffer[start + 1] == 0xFF) { start += 1 }
        if start + 1 >= buffer.count {
            // Keep a trailing 00: it may be the first byte of a start code.
            buffer = buffer.last == 0x00 ? [0x00] : []
            return nil
        }
        buffer.removeFirst(start)
        guard buffer.count >= 4 else { return nil }
        let len = buffer[2], lcs = buffer[3]
        switch (len, lcs) {
        case (0x00, 0xFF):
            buffer.removeFirst(4)
            return .ack
        case (0xFF, 0x00):
            buffer.removeFirst(4)
            return .nack
        case (0xFF, 0xFF):
            // Extended frame: 00 FF FF FF LENM LENL LCS TFI PD0..PDn DCS (UM0701-02 §6.2.1.2).
            guard buffer.count >= 7 else { return nil }
            guard (Int(buffer[4]) + Int(buffer[5]) + Int(buffer[6])) & 0xFF == 0 else {
                buffer.removeFirst(2)
                return .corrupt
            }
            return body(from: &buffer, at: 7, count: Int(buffer[4]) << 8 | Int(buffer[5]))
        default:
            guard (Int(len) + Int(lcs)) & 0xFF == 0 else {
                buffer.removeFirst(2)
                return .corrupt
            }
            return body(from: &buffer, at: 4, count: Int(len))
        }
    }

    private static func body(from buffer: inout [UInt8], at offset: Int, count: Int) -> PN532Frame? {
        guard buffer.count >= offset + count + 1 else { return nil }
        let data = Array(buffer[offset..<offset + count])
        let dcs = buffer[offset + count]
        buffer.removeFirst(offset + count + 1)
        return data.reduce(dcs, &+) == 0 ? .information(data) : .corrupt
    }

    /// An information frame carrying `data` (TFI first): normal up to 255 bytes, extended above.
    public static func encode(_ data: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x00, 0x00, 0xFF]
        if data.count <= 0xFF {
            let len = UInt8(data.count)
            frame += [len, 0 &- len]
        } else {
            let m = UInt8(truncatingIfNeeded: data.count >> 8), l = UInt8(truncatingIfNeeded: data.count)
            frame += [0xFF, 0xFF, m, l, 0 &- (m &+ l)]
        }
        frame += data
        frame.append(0 &- data.reduce(0, &+))
        frame.append(0x00)
        return frame
    }
}
