import FuzzSupport
import MRTDCore
import MRTDScanners

/// Scanner bytes (issue 28): the first byte chooses the decoder (DESKO, RTE, lines, Access-IS
/// hidraw reports, evdev records), the second the size of the pieces the stream arrives in, the rest
/// is the stream. Every frame's MRZ goes through `MRZCapture`.
@main enum FuzzMRZScanners {
    static func main() { FuzzDriver.run(test) }
    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let choice = input.byte()
        let piece = max(1, Int(input.byte()))
        let stream = input.rest()
        var decoder: any ScannerDecoder
        switch choice % 5 {
        case 0: decoder = DeskoDecoder()
        case 1: decoder = RTEDecoder(verifiesBlockCheck: choice & 0x80 == 0)
        case 2: decoder = LineDecoder()
        case 3: decoder = AccessISReportDecoder(reportSize: 2 + Int(choice >> 3))
        default: decoder = KeyboardWedgeDecoder(layout: [.us, .de, .fr][Int(choice >> 3) % 3])
        }
        var frames: [ScannerFrame] = []
        var index = 0
        while index < stream.count {
            let end = min(stream.count, index + piece)
            frames += decoder.feed(Array(stream[index..<end]))
            index = end
        }
        // No frame comes from nothing, and no frame holds more than the stream carried.
        fuzzCheck(frames.count <= stream.count, "more frames than bytes")
        for frame in frames {
            guard case .mrz(let scanned) = frame else { continue }
            fuzzCheck(scanned.lines.reduce(0) { $0 + $1.utf8.count } <= stream.count, "a frame longer than its stream")
            // The description depends on the number of lines only, never on what they say.
            let blank = ScannedMRZ(lines: scanned.lines.map { String(repeating: "X", count: $0.count) })
            fuzzCheck("\(scanned)" == "\(blank)" && "\(scanned)".hasSuffix("<redacted>)"), "ScannedMRZ description shows its lines")
            if let captured = try? MRZCapture.validate(scanned) {
                // Accepted: every check digit holds, at most one correction among the checked fields.
                fuzzCheck(captured.mrz.hasValidCheckDigits, "an accepted MRZ with a wrong check digit")
                fuzzCheck(
                    "\(captured)" == "CapturedMRZ(\(captured.mrz.format.rawValue), <redacted>, corrections: \(captured.corrections.count))",
                    "CapturedMRZ description shows MRZ content")
                fuzzCheck(captured.corrections.allSatisfy { !"\($0)".contains(captured.mrz.documentNumber) || captured.mrz.documentNumber.count < 4 },
                          "a correction's description shows the document number")
            }
        }
        return 0
    }
}
