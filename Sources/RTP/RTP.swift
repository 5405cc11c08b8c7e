// The RTP module.
