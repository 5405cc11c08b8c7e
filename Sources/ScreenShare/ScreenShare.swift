// The ScreenShare module.
