-- Unit normalization of ncu metric values: value * factor is in base_unit. Units missing here are kept as
-- exported and reported (ncu.unknown_units).
-- creates: units
--   unit       VARCHAR  unit as ncu exports it, e.g. 'usecond', 'Kbyte/second'
--   base_unit  VARCHAR  ns | byte | byte/s | Hz | % | cycle | ... (the unit itself when it has no scale)
--   factor     DOUBLE   value x factor = value in base_unit
CREATE TABLE IF NOT EXISTS units (
    unit       VARCHAR PRIMARY KEY,
    base_unit  VARCHAR NOT NULL,
    factor     DOUBLE NOT NULL
);
INSERT OR REPLACE INTO units VALUES
    ('nsecond', 'ns', 1), ('ns', 'ns', 1), ('usecond', 'ns', 1e3), ('us', 'ns', 1e3),
    ('msecond', 'ns', 1e6), ('ms', 'ns', 1e6), ('second', 'ns', 1e9), ('s', 'ns', 1e9),
    ('byte', 'byte', 1), ('Kbyte', 'byte', 1e3), ('Mbyte', 'byte', 1e6), ('Gbyte', 'byte', 1e9), ('Tbyte', 'byte', 1e12),
    ('KB', 'byte', 1e3), ('MB', 'byte', 1e6), ('GB', 'byte', 1e9), ('B', 'byte', 1),
    ('byte/second', 'byte/s', 1), ('byte/s', 'byte/s', 1), ('Kbyte/second', 'byte/s', 1e3), ('Kbyte/s', 'byte/s', 1e3),
    ('Mbyte/second', 'byte/s', 1e6), ('Mbyte/s', 'byte/s', 1e6), ('Gbyte/second', 'byte/s', 1e9),
    ('Gbyte/s', 'byte/s', 1e9), ('Tbyte/second', 'byte/s', 1e12), ('Tbyte/s', 'byte/s', 1e12),
    ('hz', 'Hz', 1), ('Hz', 'Hz', 1), ('Khz', 'Hz', 1e3), ('Mhz', 'Hz', 1e6), ('Ghz', 'Hz', 1e9), ('GHz', 'Hz', 1e9),
    ('cycle/second', 'Hz', 1), ('cycle/usecond', 'Hz', 1e6), ('cycle/nsecond', 'Hz', 1e9),
    ('%', '%', 1),
    ('byte/block', 'byte/block', 1), ('Kbyte/block', 'byte/block', 1e3), ('Mbyte/block', 'byte/block', 1e6),
    ('cycle', 'cycle', 1), ('Kcycle', 'cycle', 1e3), ('Mcycle', 'cycle', 1e6),
    ('', '', 1), ('block', 'block', 1), ('warp', 'warp', 1), ('thread', 'thread', 1), ('SM', 'SM', 1),
    ('cluster', 'cluster', 1), ('pass', 'pass', 1), ('register/thread', 'register/thread', 1),
    ('%/byte', '%/byte', 1), ('%/register', '%/register', 1), ('inst', 'inst', 1), ('sector', 'sector', 1),
    ('request', 'request', 1);
