/// The structure Doc 9303-10 §4.7.3 / §4.7.4 requires of DG3 and DG4, checked strictly (BSI
/// TR-03105-5.1 LDS_D / LDS_E): ``BiometricGroup/init(rawBytes:file:)`` is lenient and keeps what
/// it can; this names every deviation so the inspection can report the group as malformed.
extension BiometricGroup {
    /// CBEFF biometric type of the BHT (tag `81`): finger `08`, iris `10`.
    static func biometricType(_ file: LDSFile) -> UInt8 { file == .dg(3) ? 0x08 : 0x10 }

    /// CBEFF format type (tag `88`) of an ISO/IEC 19794 record under format owner `0101`: finger
    /// image (19794-4) `0007`, iris image (19794-6) `0009`.
    static func formatType(_ file: LDSFile) -> [UInt8] { file == .dg(3) ? [0x00, 0x07] : [0x00, 0x09] }

    /// The CBEFF biometric subtype (ISO/IEC 19785-3, tag `82`) a finger position of ISO/IEC
    /// 19794-4 (1 right thumb … 10 left little) or an eye (1 right, 2 left) has; 0 otherwise.
    public static func biometricSubtype(file: LDSFile, position: Int) -> UInt8 {
        if file == .dg(4) { return position == 1 || position == 2 ? UInt8(position) : 0 }
        guard (1...10).contains(position) else { return 0 }
        let side: UInt8 = position <= 5 ? 0x01 : 0x02
        let finger = UInt8((position - 1) % 5 + 1) << 2  // thumb 04, index 08, middle 0C, ring 10, little 14
        return side | finger
    }

    /// Whether `subtype` is a CBEFF biometric subtype of a finger (DG3: right/left bits 01/02 with
    /// at most one finger code 04…14) or an eye (DG4: 00, 01, 02).
    static func isValidSubtype(_ subtype: UInt8, file: LDSFile) -> Bool {
        if file == .dg(4) { return subtype <= 0x02 }
        return subtype & 0xE0 == 0 && subtype & 0x03 != 0x03 && subtype >> 2 <= 5
    }

    /// Every way `rawBytes` departs from the DG3 / DG4 structure; empty when it conforms:
    /// the outer tag and its DER length, the group template `7F61` with the number of instances
    /// (`02`) matching its `7F60` templates, and in each template a biometric header template `A1`
    /// with the biometric subtype (`82`, mandatory for DG3 and DG4), format owner `0101` (`87`), the
    /// format type of the record (`88`; `0007` / `0009` for ISO/IEC 19794 records), a biometric data
    /// block (`5F2E` or `7F2E`) and, in `5F2E`, an ISO/IEC 19794-4 (`FIR\0`) or -6 (`IIR\0`) record
    /// that reads.
    public static func structureProblems(rawBytes: [UInt8], file: LDSFile) -> [String] {
        guard file == .dg(3) || file == .dg(4) else { return ["\(file) is not DG3 or DG4"] }
        let outer: TLV
        do {
            outer = try LDSError.parseOuter(rawBytes, file: file)
        } catch {
            return ["\(file): \(error)"]
        }
        var problems: [String] = []
        let group: TLV
        let elements: [TLV]
        do {
            let top = try outer.children()
            guard let found = top.first(where: { $0.tag == 0x7F61 }) else {
                return ["\(file): no biometric information group template 7F61"]
            }
            group = found
            elements = try group.children()
        } catch {
            return ["\(file): \(error)"]
        }
        let templates = elements.filter { $0.tag == 0x7F60 }
        if let count = elements.first(where: { $0.tag == 0x02 }) {
            let declared = LDSTemplateReader.declaredCount(count)
            if declared != templates.count {
                problems.append("\(file) declares \(declared) biometric templates, holds \(templates.count)")
            }
        } else {
            problems.append("\(file): the group template 7F61 lacks the number of instances (02)")
        }
        if templates.isEmpty { problems.append("\(file): no biometric information template 7F60") }
        for (index, template) in templates.enumerated() {
            problems += templateProblems(template, number: index + 1, file: file)
        }
        return problems
    }

    private static func templateProblems(_ template: TLV, number: Int, file: LDSFile) -> [String] {
        let name = "\(file) template \(number)"
        let parts: [TLV]
        do { parts = try template.children() } catch { return ["\(name): \(error)"] }
        var problems: [String] = []
        let block = parts.first { $0.tag == 0x5F2E || $0.tag == 0x7F2E }
        if let header = parts.first(where: { $0.tag == 0xA1 }) {
            do {
                let fields = try header.children()
                func field(_ tag: UInt) -> [UInt8]? { fields.first { $0.tag == tag }?.bytes }
                if let type = field(0x81), type != [biometricType(file)] {
                    problems.append("\(name): biometric type \(type.hex) is not \(file == .dg(3) ? "finger" : "iris")")
                }
                if let subtype = field(0x82) {
                    if subtype.count != 1 || !isValidSubtype(subtype[0], file: file) {
                        problems.append("\(name): biometric subtype \(subtype.hex) names no \(file == .dg(3) ? "finger" : "eye")")
                    }
                } else {
                    problems.append("\(name): the biometric header template lacks the biometric subtype (82)")
                }
                if let owner = field(0x87) {
                    if owner != [0x01, 0x01] { problems.append("\(name): format owner \(owner.hex) is not ISO/IEC JTC 1/SC 37 (0101)") }
                } else {
                    problems.append("\(name): the biometric header template lacks the format owner (87)")
                }
                if let type = field(0x88) {
                    if block?.tag == 0x5F2E, type != formatType(file) {
                        problems.append("\(name): format type \(type.hex) is not that of an ISO/IEC 19794-\(file == .dg(3) ? 4 : 6) record (\(formatType(file).hex))")
                    }
                } else {
                    problems.append("\(name): the biometric header template lacks the format type (88)")
                }
            } catch {
                problems.append("\(name): biometric header template: \(error)")
            }
        } else {
            problems.append("\(name): no biometric header template (A1)")
        }
        guard let block else {
            problems.append("\(name): \(LDSError.missingBiometricDataBlock(template: number))")
            return problems
        }
        if block.tag == 0x5F2E {
            let magic: [UInt8] = file == .dg(3) ? [0x46, 0x49, 0x52, 0x00] : [0x49, 0x49, 0x52, 0x00]
            guard block.value.starts(with: magic) else {
                problems.append("\(name): the record's format identifier is \(block.value.prefix(4).hex), not \(file == .dg(3) ? "FIR" : "IIR") (\(magic.hex))")
                return problems
            }
        }
        do {
            if try BiometricRecord.parse(block.bytes, file: file).isEmpty { problems.append("\(name): the record holds no image") }
        } catch {
            problems.append("\(name): \(error)")
        }
        return problems
    }
}
