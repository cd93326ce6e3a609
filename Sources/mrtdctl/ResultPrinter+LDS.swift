import MRTDCore

/// Summary lines for the data groups beyond DG1/DG2 (DG11, DG12, DG16, images, DG3/DG4, DG13).
/// Personal data, shown on the terminal of the person who ran the read; never logged.
extension ResultPrinter {
    static func ldsLines(_ r: ReadResult) -> [(String, String)] {
        var lines: [(String, String)] = []
        func add(_ label: String, _ value: String?) {
            if let value, !value.isEmpty { lines.append((label, value)) }
        }
        func date(_ iso: String?, _ raw: String?) -> String? {
            guard let raw else { return nil }
            return iso.map { "\($0) (\(raw))" } ?? "\(raw) (not a valid date)"
        }
        if let p = r.personalDetails {
            add("Full name", p.fullName)
            add("Other names", p.otherNames?.joined(separator: "; "))
            add("Personal no.", p.personalNumber)
            add("Full birth", date(p.dateOfBirth, p.dateOfBirthRaw))
            add("Birthplace", p.placeOfBirth)
            add("Address", p.address)
            add("Telephone", p.telephone)
            add("Profession", p.profession)
            add("Title", p.title)
            add("Summary", p.personalSummary)
            add("Other TDs", p.otherTravelDocumentNumbers?.joined(separator: ", "))
            add("Custody", p.custodyInformation)
        }
        if let d = r.documentDetails {
            add("Authority", d.issuingAuthority)
            add("Issued", date(d.dateOfIssue, d.dateOfIssueRaw))
            add("Other persons", d.otherPersons?.joined(separator: "; "))
            add("Endorsements", d.endorsementsAndObservations)
            add("Tax/exit", d.taxOrExitRequirements)
            add("Personalized", date(d.personalizationTime, d.personalizationTimeRaw))
            add("Personalizer", d.personalizationDeviceSerialNumber)
        }
        for person in r.personsToNotify ?? [] {
            let parts = [person.name, person.telephone, person.address].compactMap { $0 }
            add("Notify", parts.joined(separator: ", ") + (person.dateRecordedRaw.map { " (recorded \($0))" } ?? ""))
        }
        for b in r.biometrics ?? [] {
            let size = b.width.flatMap { w in b.height.map { "\(w)x\($0)" } } ?? "size unknown"
            add("Biometric", "\(b.dataGroup) \(b.position ?? "position unknown"): \(b.format), \(b.imageFormat) \(size), "
                + "\(b.size) bytes [\(b.image)]")
        }
        for image in r.images ?? [] where !image.name.hasPrefix("finger-") && !image.name.hasPrefix("iris-") {
            let size = image.width.flatMap { w in image.height.map { "\(w)x\($0)" } } ?? "size unknown"
            add("Image", "\(image.name) (\(image.dataGroup)): \(image.mimeType) \(size), \(image.size) bytes")
        }
        if let o = r.optionalDetails { add("Optional", "\(o.dataGroup): \(o.size) bytes (issuer format, not decoded)") }
        return lines
    }
}
