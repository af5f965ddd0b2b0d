// placeholder until wired
