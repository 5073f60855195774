-- creates: parse_number
-- A number from exported text, with thousands separators in either locale: '5,472' and '1,234.5' (en),
-- '1.234,5' and '1.234.567' (de), '3,17' (decimal comma); 'n/a' and other text give NULL. Groups of exactly three
-- digits after a comma read as thousands ('1,500' = 1500), as ncu writes them.
CREATE OR REPLACE MACRO parse_number(text) AS
    CASE
        WHEN regexp_full_match(trim(text), '[+-]?\d{1,3}(,\d{3})+(\.\d+)?') THEN TRY_CAST(replace(trim(text), ',', '') AS DOUBLE)
        WHEN regexp_full_match(trim(text), '[+-]?\d{1,3}(\.\d{3})+,\d+|[+-]?\d{1,3}(\.\d{3}){2,}')
            THEN TRY_CAST(replace(replace(trim(text), '.', ''), ',', '.') AS DOUBLE)
        WHEN regexp_full_match(trim(text), '[+-]?\d+,\d+') THEN TRY_CAST(replace(trim(text), ',', '.') AS DOUBLE)
        ELSE TRY_CAST(trim(text) AS DOUBLE)
    END;
