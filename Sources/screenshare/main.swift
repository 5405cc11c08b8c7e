print("screenshare")
