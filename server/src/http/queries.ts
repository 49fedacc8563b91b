/** `/readyz`'s database probe: the cheapest statement that needs a working connection. */
export const READY = 'SELECT 1 AS ok';
