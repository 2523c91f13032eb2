fn main() {
    for t in [
        "name = \"x\"\nparent = \"chess\"\nfiles = \"six\"\n",
        "name = \"x\"\nparent = = 3\n",
        "name = \"x\"\nparent = \"chess\"\n[[piece]]\nletter = \"a\"\nbetza = \"QX\"\n",
        "name = \"x\"\nparent = \"chess\"\n[[piece]]\nletter = \"ab\"\nbetza = \"QX\"\n",
        "name = \"x\"\nparent = \"chess\"\nwin = \"mate\"\n",
        "name = \"x\"\nparent = \"chess\"\npromotion = \"q\"\n",
        "name = \"x\"\nparent = \"chess\"\nstart = \"8/8/8/8/8/8/8/8 w - - 0 1\"\n",
        "name = \"x\"\nparent = \"chesss\"\n",
        "name = \"x\"\n[piece]\nletter = \"a\"\n",
        "name = \"x\"\n[[piece]]\nbetza = \"K\"\n",
        "name = 3\n",
        "",
    ] {
        match rules::spec::load_variant_str(t) { Ok(v) => println!("OK {}", v.name), Err(e) => println!("{e:?}\n   {e}") }
    }
}
