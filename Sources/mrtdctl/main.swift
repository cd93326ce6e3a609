print("mrtdctl")
