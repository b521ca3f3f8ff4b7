// A definition whose body the parse left out has nothing to weave into: with
// -fdelayed-template-parsing (the default when targeting MSVC) a template's body is parsed
// only when the template is used, and a weaver instantiates nothing.
// RUN: not %weave %s -o %t.cpp -- -std=c++20 -fdelayed-template-parsing 2>&1 | FileCheck %s
// The same source is woven when template bodies are parsed.
// RUN: %weave %s -o %t.cpp -- -std=c++20 -fdelayed-template-parsing -fno-delayed-template-parsing

// CHECK: body_not_parsed.cpp:[[@LINE+1]]:22: error: the body of 'restock' was not parsed: -fdelayed-template-parsing (the default when targeting MSVC) leaves template bodies unparsed until used; weave with -fno-delayed-template-parsing
template <class T> [[distlock::lock("stock", 1000)]] void restock(T) {}
