import Media

extension Duration {
    /// "3 s", "6.5 s": how a span reads in a reason.
    var spoken: String {
        let tenths = (inSeconds * 10).rounded()
        if tenths.truncatingRemainder(dividingBy: 10) == 0 {
            return "\(Int64(tenths / 10)) s"
        }
        return "\(tenths / 10) s"
    }
}
