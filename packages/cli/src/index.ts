// The portolan command line.
