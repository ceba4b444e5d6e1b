//! The encoded size of a value as a formula over the value (provisional; replaced by the
//! rendering module's version).
#![allow(missing_docs)]

use metalayer_runtime::wire::Wire;

use crate::model::{Const, Count, Encoding, Family, Layout, Node, Record, Role, Type};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place(pub Vec<Step>);

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Entry { index: usize, name: String },
    Element,
    Key,
    Value,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Var {
    Count(Place),
    Len(Place),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    Linear {
        k: usize,
        of: Var,
    },
    Smallest {
        family: Family,
        of: Place,
    },
    Each {
        of: Place,
        element: Box<Size>,
    },
    EachPair {
        of: Place,
        key: Box<Size>,
        value: Box<Size>,
    },
    Record {
        of: Place,
        ty: usize,
    },
    Optional {
        of: Place,
        size: Box<Size>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Size {
    pub fixed: usize,
    pub terms: Vec<Term>,
}

fn child(at: &Place, step: Step) -> Place {
    let mut s = at.0.clone();
    s.push(step);
    Place(s)
}

impl Size {
    fn add(&mut self, other: Size) {
        self.fixed += other.fixed;
        for t in other.terms {
            if let Term::Linear { k, of } = &t
                && let Some(Term::Linear { k: k2, .. }) = self
                    .terms
                    .iter_mut()
                    .find(|x| matches!(x, Term::Linear { of: o, .. } if o == of))
            {
                *k2 += k;
                continue;
            }
            self.terms.push(t);
        }
    }
}

fn header(enc: Encoding, family: Family, at: &Place, fixed_len: Option<usize>) -> Size {
    match enc {
        Encoding::Fixed(w) => Size {
            fixed: w.header_size(),
            terms: vec![],
        },
        Encoding::Canonical { .. } => match fixed_len {
            Some(n) => Size {
                fixed: Wire::smallest_header_size(family, n as u64),
                terms: vec![],
            },
            None => Size {
                fixed: 0,
                terms: vec![Term::Smallest { family, of: at.clone() }],
            },
        },
    }
}

pub fn of(layout: &Layout, node: &Node, at: &Place) -> Size {
    let fixed = |n| Size {
        fixed: n,
        terms: vec![],
    };
    match &node.ty {
        Type::Nil | Type::Bool => fixed(1),
        Type::Int(t) => match t.encoding {
            Encoding::Fixed(w) => fixed(w.header_size()),
            Encoding::Canonical { .. } => Size {
                fixed: 0,
                terms: vec![Term::Smallest {
                    family: Family::Int,
                    of: at.clone(),
                }],
            },
        },
        Type::Float(w) => fixed(w.header_size()),
        Type::Str(t) => {
            let mut s = header(t.encoding, Family::Str, at, None);
            s.add(Size {
                fixed: 0,
                terms: vec![Term::Linear {
                    k: 1,
                    of: Var::Len(at.clone()),
                }],
            });
            s
        }
        Type::Bin(e) => {
            let mut s = header(*e, Family::Bin, at, None);
            s.add(Size {
                fixed: 0,
                terms: vec![Term::Linear {
                    k: 1,
                    of: Var::Len(at.clone()),
                }],
            });
            s
        }
        Type::Ext(t) => {
            let mut s = match t.encoding {
                Encoding::Fixed(w) => fixed(w.header_size()),
                Encoding::Canonical { .. } => Size {
                    fixed: 0,
                    terms: vec![Term::Smallest {
                        family: Family::Ext,
                        of: at.clone(),
                    }],
                },
            };
            s.add(Size {
                fixed: 0,
                terms: vec![Term::Linear {
                    k: 1,
                    of: Var::Len(at.clone()),
                }],
            });
            s
        }
        Type::Array(a) => {
            let n = match a.count {
                Count::Fixed(n) => Some(n),
                _ => None,
            };
            let mut s = header(a.header, Family::Array, at, n);
            let el = of(layout, &a.element, &child(at, Step::Element));
            if el.terms.is_empty() {
                s.add(Size {
                    fixed: 0,
                    terms: vec![Term::Linear {
                        k: el.fixed,
                        of: Var::Count(at.clone()),
                    }],
                });
            } else {
                s.add(Size {
                    fixed: 0,
                    terms: vec![Term::Each {
                        of: at.clone(),
                        element: Box::new(el),
                    }],
                });
            }
            s
        }
        Type::Map(m) => {
            let n = match m.count {
                Count::Fixed(n) => Some(n),
                _ => None,
            };
            let mut s = header(m.header, Family::Map, at, n);
            let k = of(layout, &m.key, &child(at, Step::Key));
            let v = of(layout, &m.value, &child(at, Step::Value));
            s.add(Size {
                fixed: 0,
                terms: vec![Term::EachPair {
                    of: at.clone(),
                    key: Box::new(k),
                    value: Box::new(v),
                }],
            });
            s
        }
        Type::Record(r) => of_record(layout, r, at),
        Type::Ref(i) => Size {
            fixed: 0,
            terms: vec![Term::Record { of: at.clone(), ty: *i }],
        },
    }
}

pub fn of_record(layout: &Layout, record: &Record, at: &Place) -> Size {
    let mut s = match record.header {
        Encoding::Fixed(w) => Size {
            fixed: w.header_size(),
            terms: vec![],
        },
        Encoding::Canonical { .. } if record.required == record.entries.len() => Size {
            fixed: Wire::smallest_header_size(record.form, record.entries.len() as u64),
            terms: vec![],
        },
        // The canonical header of a record with optional entries is at most 15 entries: 1 byte.
        Encoding::Canonical { .. } => Size {
            fixed: 1,
            terms: vec![],
        },
    };
    for (i, e) in record.entries.iter().enumerate() {
        let place = child(
            at,
            Step::Entry {
                index: i,
                name: e.name.clone(),
            },
        );
        let mut es = Size::default();
        if record.form == Family::Map {
            es.fixed += e.key.as_deref().map_or(0, metalayer_runtime::key_size);
        }
        match &e.role {
            Role::Const(_) => {
                let n = match (&e.node.ty, &e.role) {
                    (Type::Int(t), Role::Const(Const::Int(v))) => match t.encoding {
                        Encoding::Fixed(w) => w.header_size(),
                        Encoding::Canonical { .. } => Wire::smallest_int_size(*v),
                    },
                    (Type::Str(_) | Type::Bin(_), Role::Const(Const::Bytes(b))) => {
                        let (enc, fam) = match &e.node.ty {
                            Type::Str(t) => (t.encoding, Family::Str),
                            Type::Bin(x) => (*x, Family::Bin),
                            _ => unreachable!(),
                        };
                        let h = match enc {
                            Encoding::Fixed(w) => w.header_size(),
                            Encoding::Canonical { .. } => Wire::smallest_header_size(fam, b.len() as u64),
                        };
                        h + b.len()
                    }
                    _ => of(layout, &e.node, &place).fixed,
                };
                es.fixed += n;
            }
            _ => {
                let mut v = of(layout, &e.node, &place);
                // A counted array's count is the count entry's value.
                if let Type::Array(a) = &e.node.ty
                    && let Count::Entry(c) = a.count
                {
                    let _ = c;
                }
                es.add(std::mem::take(&mut v));
            }
        }
        if e.optional {
            s.add(Size {
                fixed: 0,
                terms: vec![Term::Optional {
                    of: place,
                    size: Box::new(es),
                }],
            });
        } else {
            s.add(es);
        }
    }
    s
}
