/*
 * ZLUDA-J PTX grammar. Deliberately generic: an instruction is (guard, opcode, ordered modifiers, operands), and a
 * declaration is (attributes, declarators); the meaning of opcodes and modifiers is checked afterwards by the
 * instruction table (org.zludaj.ptx.isa), so adding an opcode never touches this grammar. Covers PTX ISA up to 9.0.
 * Large modules are split at top-level boundaries and the pieces parsed independently (org.zludaj.ptx.Chunks).
 */
grammar Ptx;

module : topLevel* EOF ;

topLevel
    : versionDirective
    | targetDirective
    | addressSizeDirective
    | fileDirective
    | sectionDirective
    | pragmaDirective
    | function
    | declaration ';'
    | aliasDirective
    ;

versionDirective     : '.version' FLOAT ;
targetDirective      : '.target' ID (',' ID)* ;
addressSizeDirective : '.address_size' INT ;
fileDirective        : '.file' INT STRING (',' INT)* ;
sectionDirective     : '.section' DOT_ID '{' sectionItem* '}' ;
sectionItem          : ~('{' | '}')+ | '{' sectionItem* '}' ;
pragmaDirective      : '.pragma' STRING (',' STRING)* ';' ;
aliasDirective       : '.alias' ID ',' ID ';' ;

function
    : attribute* kind=('.entry' | '.func') ('(' params? ')')? name=ID ('(' params? ')')?
      performanceDirective* (body | ';')
    ;
params        : paramDecl (',' paramDecl)* ;
paramDecl     : attribute+ (ID | '_') arraySuffix* ;
performanceDirective : DOT_ID (INT (',' INT)*)? | '.noreturn' | pragmaDirective ;

body : '{' statement* '}' ;

statement
    : ID ':'                                   # label
    | kind=('.branchtargets' | '.calltargets') ID (',' ID)* ';' # targetList
    | declaration ';'                          # localDeclaration
    | guard? opcode=ID DOT_ID* operandList? ';' # instruction
    | body                                     # block
    | pragmaDirective                          # pragmaStatement
    | '.callprototype' ('(' params? ')')? '_' ('(' params? ')')? '.noreturn'? ';' # callPrototype
    | DOT_ID (ID | INT) (',' (ID | INT))* ';'  # otherDirective
    | DOT_ID ';'                               # bareDirective
    ;

guard : '@' '!'? ID ;

declaration : attribute+ declarator (',' declarator)* ;
attribute   : DOT_ID INT? | DOT_ID '(' DOT_ID (',' DOT_ID)* ')' | '.entry' | '.func' ;
declarator  : ID ('<' INT '>')? arraySuffix* ('=' initializer)? ;
arraySuffix : '[' INT? ']' ;
initializer : '{' initializer (',' initializer)* '}' | expression ('|' expression)* ;

operandList : operand (',' operand)* ;
operand
    : '[' operand (',' operand)* ']'                  # address
    | '{' operand (',' operand)* '}'                   # vector
    | '_'                                              # sink
    | '(' operandList? ')'                             # tuple
    | expression ('|' expression)*                     # plain
    ;

expression
    : '-' expression                                   # negate
    | '+' expression                                   # positive
    | '!' expression                                   # not
    | '~' expression                                   # complement
    | expression op=('*' | '/') expression             # mulDiv
    | expression op=('+' | '-') expression             # addSub
    | expression op=('<<' | '>>') expression           # shift
    | expression op=('<' | '>' | '<=' | '>=') expression # compare
    | expression op=('==' | '!=') expression           # equal
    | expression '&' expression                        # bitAnd
    | expression '^' expression                        # bitXor
    | '(' expression ')'                               # paren
    | ID '(' expression ')'                            # call
    | ID DOT_ID?                                       # name
    | INT                                              # integer
    | FLOAT                                            # floating
    | HEXFLOAT                                         # hexFloat
    ;

// ---- lexer ----
DOT_ID   : '.' [a-zA-Z0-9_] [a-zA-Z0-9_$]* ('::' [a-zA-Z0-9_]+)* ;
ID       : [a-zA-Z] [a-zA-Z0-9_$]* | [_$%] [a-zA-Z0-9_$]+ ;
HEXFLOAT : '0' [fFdD] [0-9a-fA-F]+ ;
FLOAT    : [0-9]+ '.' [0-9]* ([eE] [+-]? [0-9]+)? ;
INT      : ('0' [xX] [0-9a-fA-F]+ | '0' [bB] [01]+ | [0-9]+) [uU]? ;
STRING   : '"' (~["\\\r\n] | '\\' .)* '"' ;
LOC      : '.loc' [ \t] ~[\r\n]* -> skip ;   // debug line info: not needed for code generation
COMMENT  : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
WS       : [ \t\r\n]+ -> skip ;
ANY      : . ;
