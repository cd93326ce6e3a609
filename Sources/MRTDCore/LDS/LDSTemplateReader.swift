/// Reads the data objects of the text data groups (DG11, DG12, DG16 entries): an outer template
/// holding a tag list (`5C`) and optional objects, each present at most once.
///
/// The structure must be sound BER-TLV (a broken one throws); everything above it is lenient: a
/// missing or wrong tag list, an unknown or repeated object, text that is not UTF-8 become
/// `warnings`, which name tags and never the values (they are personal data).
struct LDSTemplateReader {
    let file: LDSFile
    let objects: [TLV]
    private(set) var warnings: [String] = []

    /// Parses the file's outer object (its tag must be the file's) and its children.
    init(rawBytes: [UInt8], file: LDSFile) throws(LDSError) {
        let outer = try LDSError.parseOuter(rawBytes, file: file)
        try self.init(template: outer, file: file)
        checkTagList()
    }

    /// Reads the children of a nested template (a DG16 person, for instance).
    init(template: TLV, file: LDSFile) throws(LDSError) {
        self.file = file
        self.objects = try LDSError.wrap { () throws(TLVError) in try template.children() }
    }

    /// The first object with `tag`.
    func object(_ tag: UInt) -> TLV? { objects.first { $0.tag == tag } }

    /// The value of `tag` as text; `nil` when absent or empty.
    mutating func text(_ tag: UInt) -> String? {
        guard let object = object(tag), !object.value.isEmpty else { return nil }
        return decode(object)
    }

    /// The value of `tag` as a date.
    func date(_ tag: UInt) -> LDSDate? {
        guard let object = object(tag), !object.value.isEmpty else { return nil }
        return LDSDate(bytes: object.value)
    }

    /// The value of `tag` as bytes (images); `nil` when absent or empty.
    func bytes(_ tag: UInt) -> [UInt8]? {
        guard let object = object(tag), !object.value.isEmpty else { return nil }
        return object.bytes
    }

    /// A repeated text field: Doc 9303-10 wraps it as `wrapper { 02 count, tag, tag, … }`; some
    /// chips send the objects bare in the outer template, which is accepted too. A count that
    /// disagrees with the objects found is a warning.
    mutating func repeatedText(wrapper: UInt, _ tag: UInt) -> [String] {
        var values: [String] = []
        for object in objects where object.tag == tag && !object.value.isEmpty {
            values.append(decode(object))
        }
        for container in objects where container.tag == wrapper {
            guard let inner = try? container.children() else {
                warnings.append("\(file): template 0x\(LDSTemplateReader.hex(wrapper)) is not valid BER-TLV")
                continue
            }
            let items = inner.filter { $0.tag == tag }
            if let count = inner.first(where: { $0.tag == 0x02 }) {
                let declared = LDSTemplateReader.declaredCount(count)
                if declared != items.count {
                    warnings.append("\(file): template 0x\(LDSTemplateReader.hex(wrapper)) declares \(declared) "
                        + "entries, holds \(items.count)")
                }
            }
            for unknown in Set(inner.map(\.tag)).subtracting([0x02, tag]).sorted() {
                warnings.append("\(file): unknown data object 0x\(LDSTemplateReader.hex(unknown)) in "
                    + "0x\(LDSTemplateReader.hex(wrapper)), ignored")
            }
            for item in items where !item.value.isEmpty { values.append(decode(item)) }
        }
        return values
    }

    /// Warns about objects outside `known` and objects present more than once.
    mutating func finish(known: Set<UInt>) {
        var seen: Set<UInt> = []
        for object in objects {
            if !known.contains(object.tag) && object.tag != 0x5C {
                warnings.append("\(file): unknown data object 0x\(LDSTemplateReader.hex(object.tag)), ignored")
            } else if !seen.insert(object.tag).inserted && object.tag != 0x5F0F && object.tag != 0x5F1A {
                warnings.append("\(file): data object 0x\(LDSTemplateReader.hex(object.tag)) repeated; the first is used")
            }
        }
    }

    private mutating func decode(_ object: TLV) -> String {
        let (text, notUTF8) = LDSText.decode(object.value)
        if notUTF8 {
            warnings.append("\(file): data object 0x\(LDSTemplateReader.hex(object.tag)) is not UTF-8; read as ISO 8859-1")
        }
        return text
    }

    /// Doc 9303-10 §4.7.11/§4.7.12: the tag list (`5C`) names the objects present. Its absence or a
    /// disagreement with the objects is a warning.
    private mutating func checkTagList() {
        guard let list = object(0x5C) else {
            warnings.append("\(file): tag list (0x5C) missing")
            return
        }
        guard let listed = LDSTemplateReader.tags(in: list.value) else {
            warnings.append("\(file): tag list (0x5C) is not a list of tags")
            return
        }
        // Lists name either the A0 template or the objects inside it (5F0F, 5F1A): both count.
        var present = Set(objects.map(\.tag)).subtracting([0x5C])
        for container in objects where container.tag == 0xA0 {
            present.formUnion(((try? container.children()) ?? []).map(\.tag))
        }
        for tag in listed where !present.contains(tag) {
            warnings.append("\(file): tag list names 0x\(LDSTemplateReader.hex(tag)), which is absent")
        }
    }

    /// The BER tags concatenated in a tag list (ISO/IEC 7816-4 §5.2.2.1), or `nil` if one is cut.
    static func tags(in bytes: ArraySlice<UInt8>) -> [UInt]? {
        var tags: [UInt] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            var tag = UInt(bytes[i])
            let multiByte = bytes[i] & 0x1F == 0x1F
            i += 1
            if multiByte {
                var extra = 0
                while true {
                    guard i < bytes.endIndex, extra < 3 else { return nil }
                    let b = bytes[i]
                    tag = tag << 8 | UInt(b)
                    i += 1
                    extra += 1
                    if b & 0x80 == 0 { break }
                }
            }
            tags.append(tag)
        }
        return tags
    }

    /// The value of a count object (`02`): at most two bytes, else -1 (never equal to a count found).
    static func declaredCount(_ object: TLV) -> Int {
        object.value.count <= 2 ? object.value.reduce(0) { $0 << 8 | Int($1) } : -1
    }

    /// A warning when the count object (`02`) among `children` is missing or disagrees with the
    /// `found` entries (`of` names them); none when it agrees.
    static func countWarning(_ children: [TLV], found: Int, file: LDSFile, of what: String) -> [String] {
        guard let count = children.first(where: { $0.tag == 0x02 }) else {
            return ["\(file): number of \(what) (0x02) missing"]
        }
        let declared = declaredCount(count)
        return declared == found ? [] : ["\(file) declares \(declared) \(what), holds \(found)"]
    }

    static func hex(_ t: UInt) -> String {
        let s = String(t, radix: 16, uppercase: true)
        return s.count % 2 == 1 ? "0" + s : s
    }
}
