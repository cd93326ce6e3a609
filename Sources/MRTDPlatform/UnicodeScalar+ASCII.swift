extension Unicode.Scalar {
    /// A–Z, a–z or 0–9: Foundation's `CharacterSet.alphanumerics` restricted to ASCII, without
    /// Foundation.
    package var isASCIIAlphanumeric: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self)
    }
}
