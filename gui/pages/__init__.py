"""One page per screen: the home page and one guided page per audit type."""
