"""The fatigue worker: its faust agent (`agent`), the Redis store and the trend maths (`trend`)."""
