{
  "targets": [
    {
      "target_name": "spawn",
      "sources": ["spawn.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"]
    }
  ]
}
