//! librdmacm has no compat-version symbols; the module exists for the generated .symver table's convention.
