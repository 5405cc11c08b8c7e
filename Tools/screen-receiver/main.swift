print("screen-receiver")
