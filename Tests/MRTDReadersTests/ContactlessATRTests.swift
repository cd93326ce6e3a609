import MRTDCore
import Testing

@testable import MRTDReaders

/// ATRs built from ATS/ATQB as PC/SC Part 3 §3.1.3.2.3 lays them out, and the bit rates a card
/// allows (ISO/IEC 14443-4 §5.2.4 TA(1), ISO/IEC 14443-3 §7.9.4.1 Bit_Rate_capability).
@Suite struct ContactlessATRTests {
    struct TypeAVector: Sendable, CustomTestStringConvertible {
        var name: String
        var ats: String
        var atr: String
        var testDescription: String { name }
    }

    static let typeA: [TypeAVector] = [
        // MIFARE DESFire EV1: ATS 06 75 77 81 02 80 -> the well-known ATR 3B 81 80 01 80 80.
        .init(name: "DESFire EV1", ats: "75778102" + "80", atr: "3B8180018080"),
        // No interface bytes, no historical bytes.
        .init(name: "T0 only", ats: "00", atr: "3B80800101"),
        // TA, TB, TC present, historical bytes "MRTD".
        .init(name: "TA TB TC and 4 historical bytes", ats: "788070024D525444", atr: "3B8480014D5254440A"),
        // T0 claims TA, TB, TC but the ATS ends: no historical bytes rather than a crash.
        .init(name: "truncated interface bytes", ats: "7880", atr: "3B80800101"),
    ]

    @Test(arguments: typeA)
    func typeAATRCarriesTheATSHistoricalBytes(_ vector: TypeAVector) throws {
        let ats = try #require([UInt8](hex: vector.ats))
        #expect(ContactlessATR.typeA(ats: ats).hex.uppercased() == vector.atr)
    }

    @Test func typeAATRKeepsAtMost15HistoricalBytes() {
        let ats: [UInt8] = [0x00] + [UInt8](repeating: 0x41, count: 20)
        let atr = ContactlessATR.typeA(ats: ats)
        #expect(atr.count == 4 + 15 + 1)
        #expect(atr[1] == 0x8F)
        #expect(atr.dropFirst().reduce(0, ^) == 0, "TCK makes the exclusive-or of T0...TCK zero")
    }

    @Test func anEmptyATSGivesAnATRWithoutHistoricalBytes() {
        #expect(ContactlessATR.typeA(ats: []) == [0x3B, 0x80, 0x80, 0x01, 0x01], "the familiar ATR of a -4 card without historical bytes")
    }

    @Test func typeBATRCarriesApplicationDataProtocolInfoAndMBLI() {
        let atr = ContactlessATR.typeB(
            applicationData: [0x11, 0x22, 0x33, 0x44], protocolInfo: [0x00, 0x81, 0x71], attribResponseFirstByte: 0x35)
        #expect(Array(atr.prefix(4)) == [0x3B, 0x88, 0x80, 0x01])
        #expect(Array(atr[4..<12]) == [0x11, 0x22, 0x33, 0x44, 0x00, 0x81, 0x71, 0x30], "MBLI high nibble, RFU low nibble 0")
        #expect(atr.count == 13)
        #expect(atr.dropFirst().reduce(0, ^) == 0)
    }

    // libnfc's nfc_baud_rate values: NBR_106 = 1, NBR_212 = 2, NBR_424 = 3, NBR_847 = 4.
    static let rateVectors: [(UInt8, [UInt32])] = [
        (0x80, [1]),  // same D required, nothing above 106
        (0x00, [1]),
        (0x22, [1, 3]),
        (0xA2, [1, 3]),
        (0x77, [1, 2, 3, 4]),
        (0x70, [1]),  // PICC to PCD only: no common rate above 106
        (0x07, [1]),  // PCD to PICC only
        (0x31, [1, 2]),
    ]

    @Test(arguments: rateVectors)
    func aCardOffersOnlyRatesItSupportsInBothDirections(_ capability: UInt8, _ expected: [UInt32]) {
        #expect(LibNFCDevice.bitRates(capability: capability) == expected)
    }

    // libnfc 1.8 nfc.h codes.
    static let failureVectors: [(Int32, LibNFCFailure)] = [
        (-10, .targetReleased),  // NFC_ETGRELEASED
        (-20, .rfFailure),  // NFC_ERFTRANS
        (-6, .hostTimeout),  // NFC_ETIMEOUT
        (-1, .deviceLost),  // NFC_EIO
        (-4, .deviceLost),  // NFC_ENOTSUCHDEV
        (-7, .aborted),  // NFC_EOPABORTED
        (-90, .other(-90)),  // NFC_ECHIP
        (-5, .other(-5)),  // NFC_EOVFLOW
    ]

    @Test(arguments: failureVectors)
    func libnfcCodesMapOntoFailureKinds(_ code: Int32, _ failure: LibNFCFailure) {
        #expect(LibNFCFailure(code: code) == failure)
        #expect(LibNFCFailure.describe(code).contains("(NFC_E"))
    }

    @Test(arguments: [
        ("pn532_uart:/dev/null", true),
        ("pn532_uart:/dev/null:115200", true),
        ("pn532_uart:/dev/mrtdd-no-such-port", false),
        ("pn53x_usb:", true),
        ("pn53x_usb:001:004", true),
        ("acr122_usb", true),
    ])
    func rescansSkipSerialPortsThatAreNotThere(_ connstring: String, _ mayExist: Bool) {
        #expect(LibNFCBackend.portMayExist(connstring) == mayExist)
    }

    @Test func listedConnstringsAreReadFromLibNFCsSlotsAndPCSCOnesLeftOut() {
        let size = 16
        func slot(_ text: String) -> [CChar] {
            let bytes = Array(text.utf8.prefix(size - 1)).map { CChar(bitPattern: $0) }
            return bytes + [CChar](repeating: 0, count: size - bytes.count)
        }
        let buffer = slot("pn53x_usb:1:4") + slot("pcsc:ACS ACR") + slot("acr122_usb:2:5") + slot("") + slot("junk-not-counted")
        #expect(LibNFCBackend.connstrings(listed: buffer, count: 4, size: size) == ["pn53x_usb:1:4", "acr122_usb:2:5"])
        #expect(LibNFCBackend.connstrings(listed: buffer, count: 9, size: size).count == 3, "slots past the buffer are ignored")
    }
}
