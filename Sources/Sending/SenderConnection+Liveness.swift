extension SenderConnection {
    /// Every authenticated RTCP packet the receiver has sent so far (RR,
    /// REMB, PLI, FIR, NACK, transport-wide feedback): while it grows, the receiver is there.
    package var feedbackReceived: Int {
        lock.withLock {
            state.receiverReports + state.rembsReceived + state.plisReceived + state.firsReceived + state.nacksReceived
                + state.transportFeedbackReceived
        }
    }
}
