particle lon lat
